#!/usr/bin/env python3
"""Record the golden games that tests/engine/test_golden.py replays.

    .venv/bin/python scripts/make_golden_games.py [--out tests/data/golden_games.json]

Each game is played to the end with random legal actions drawn from a seeded
``random.Random`` and written down as {num_players, options, seed, first_dealer
(only when given), actions: [[player, action JSON], ...], final_scores,
round_scores (totals after each round), trump_cards (the turned card id of each
round, null when none)}.

The file was generated once and is committed. It guards the deal and the rules
against refactors: do not regenerate it to make a failing test pass. Only a
deliberate change of the deal or the rules justifies a new file, and that change
breaks every recorded game of every user.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from wizard.engine import GameOptions, RoundCompleted, RoundStarted, WizardGame, action_to_dict

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "data" / "golden_games.json"

# (players, hidden_bids, forbid_even_bids, wizard_trump_dealer_chooses, seed, first_dealer)
# Every player count and every option combination at least once; seeds small, negative
# and 63-bit; the first dealer given or drawn from the seed.
CASES: list[tuple[int, bool, bool, bool, int, int | None]] = [
    (3, False, True, False, 1, None),
    (3, True, False, True, -17, 2),
    (3, False, False, False, 2**63 - 1, 0),
    (4, False, True, False, 2024, 0),
    (4, True, True, False, 7, None),
    (4, False, True, True, 123456789, 3),
    (4, True, True, True, -1, None),
    (5, False, False, True, 55, 4),
    (5, True, False, False, 9_000_000_000, None),
    (5, False, True, True, 0, 1),
    (6, True, True, True, 31337, 5),
    (6, False, False, False, -(2**62), None),
]


def record(players: int, options: GameOptions, seed: int, first_dealer: int | None,
           choice_seed: int) -> dict[str, Any]:
    game = WizardGame(players, options, seed=seed, first_dealer=first_dealer)
    rng = random.Random(choice_seed)
    actions: list[list[Any]] = []
    trump_cards: list[int | None] = [game.trump_card.id if game.trump_card else None]
    round_scores: list[list[int]] = []
    while not game.is_finished:
        player = game.current_player
        assert player is not None
        action = rng.choice(game.legal_actions())
        actions.append([player, action_to_dict(action)])
        for event in game.apply(player, action):
            if isinstance(event, RoundCompleted):
                round_scores.append(list(event.result.scores))
            elif isinstance(event, RoundStarted):
                trump_cards.append(event.trump_card.id if event.trump_card else None)
    entry: dict[str, Any] = {
        "num_players": players,
        "options": options.to_dict(),
        "seed": seed,
    }
    if first_dealer is not None:
        entry["first_dealer"] = first_dealer
    entry.update(
        final_scores=game.scores,
        round_scores=round_scores,
        trump_cards=trump_cards,
        actions=actions,
    )
    return entry


def dump(games: list[dict[str, Any]]) -> str:
    """Readable and diffable: one line per field, one line per action."""
    lines = ["{", '  "games": [']
    for g, game in enumerate(games):
        lines.append("    {")
        for key, value in game.items():
            if key == "actions":
                lines.append('      "actions": [')
                actions = [f"        {json.dumps(a, separators=(',', ':'))}" for a in value]
                lines.append(",\n".join(actions))
                lines.append("      ]")
            else:
                lines.append(f"      {json.dumps(key)}: {json.dumps(value)},")
        lines.append("    }" + ("," if g < len(games) - 1 else ""))
    lines += ["  ]", "}", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    games = [
        record(players, GameOptions(hidden, forbid, chooses), seed, dealer, choice_seed=k)
        for k, (players, hidden, forbid, chooses, seed, dealer) in enumerate(CASES)
    ]
    text = dump(games)
    json.loads(text)  # the hand-made layout must still be JSON
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {len(games)} games, {sum(len(g['actions']) for g in games)} actions "
          f"to {args.out}")


if __name__ == "__main__":
    main()
