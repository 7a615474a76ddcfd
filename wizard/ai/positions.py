"""Positions to measure agents on: the seat to move in games with fixed seeds.

The benchmarks (``scripts/bench_*.py``) time agents, encoders and models on the
same kind of sample: every decision of whole games, drawn from one seed so that
two runs see the same positions.

>>> sample = positions(30, seed=2)
>>> len(sample), sample[0].phase.value, all(obs.legal_actions for obs in sample)
(30, 'bidding', True)
>>> positions(5, seed=2) == sample[:5]
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from wizard.engine import Action, GameOptions, Observation, WizardGame

Chooser = Callable[[Observation], Action]


def positions(count: int, seed: int = 1, *, players: Sequence[int] = (4,),
              play: Chooser | None = None, random_options: bool = False) -> list[Observation]:
    """``count`` observations of the seat to move, game after game, from ``seed``.

    Each game has a player count drawn from ``players``; moves are random legal
    ones unless ``play`` chooses them; ``random_options`` draws hidden bids and the
    dealer's trump choice for each game. Raises `ValueError` for an empty ``players``.
    """
    if not players:
        raise ValueError("players must name at least one player count")
    out: list[Observation] = []
    rng = random.Random(seed)
    while len(out) < count:
        num_players = players[0] if len(players) == 1 else rng.choice(players)
        options = GameOptions()
        if random_options:
            options = GameOptions(hidden_bids=rng.random() < 0.5,
                                  wizard_trump_dealer_chooses=rng.random() < 0.5)
        game = WizardGame(num_players, options, seed=rng.getrandbits(32))
        while not game.is_finished and len(out) < count:
            player = game.current_player
            assert player is not None
            observation = game.observation(player)
            out.append(observation)
            action = rng.choice(observation.legal_actions) if play is None else play(observation)
            game.apply(player, action)
    return out


__all__ = ["Chooser", "positions"]
