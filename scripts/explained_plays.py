#!/usr/bin/env python3
"""How often the heuristic explains the other seats' card plays, by who they are.

Seat 0 plays the heuristic; the other three seats play ``--opponents``. At each
of seat 0's card decisions with an informative play of another seat this round,
`wizard.ai.search.table.explained_plays` counts the plays that some of
``--deals`` sampled deals explains, as the master does when it reads the table.
Prints the share of informative plays explained and the mean weight master v5
would give OI's values (`TABLE_PRIOR_WEIGHT`). The figures behind
`EXPLAINED_IF_HEURISTIC` and `EXPLAINED_OTHERWISE`:
``scripts/explained_plays.py --opponents heuristic --games 6`` (and ``oi``).
"""

from __future__ import annotations

import argparse
import random
import sys

from wizard.ai.registry import make_agent
from wizard.ai.search import TABLE_PRIOR_WEIGHT
from wizard.ai.search.table import explained_plays
from wizard.ai.search.worlds import Knowledge, sample_hands
from wizard.engine import Phase, WizardGame


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponents", default="heuristic", help="an agent name, e.g. oi")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--deals", type=int, default=TABLE_PRIOR_WEIGHT.deals)
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    me = make_agent("heuristic")
    explained = informative = decisions = 0
    weights: list[float] = []
    for game_number in range(args.games):
        seed = args.seed + game_number
        others = [make_agent(args.opponents, seed=seed + k) for k in (1, 2, 3)]
        game = WizardGame(4, seed=seed)
        while game.phase is not Phase.FINISHED:
            seat = game.current_player
            assert seat is not None
            obs = game.observation(seat)
            if seat == 0 and obs.phase is Phase.PLAYING:
                knowledge = Knowledge.of(obs)
                deals = [sample_hands(knowledge, rng) for _ in range(args.deals)]
                x, m = explained_plays(obs, deals)
                if m:
                    explained, informative, decisions = explained + x, informative + m, \
                        decisions + 1
                    weights.append(TABLE_PRIOR_WEIGHT.weight(obs, seed))
            game.apply(seat, (me if seat == 0 else others[seat - 1]).act(obs))
    print(f"opponents {args.opponents}: {decisions} decisions, {informative} informative plays, "
          f"explained {explained / max(informative, 1):.3f}, "
          f"master's weight of OI {sum(weights) / max(len(weights), 1):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
