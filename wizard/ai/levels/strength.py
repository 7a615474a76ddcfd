"""How a bot's strength turns into its choice: the one recipe every path draws with.

A bot has a strength 0–100 (drawn once per game, `wizard.ai.levels`). Each of
its decisions (`move_draw`) takes a generator seeded by ``(seed, move number)``
and draws, in this order:

1. where the brain varies it (`varies_per_move`), this move's strength: the
   game's ±`STRENGTH_JITTER`, kept within 0–100 (one ``randint``);
2. whether this move is a random legal one (chance `random_move_chance` of the
   move's strength), and if so which (``choice`` over the legal actions);
3. otherwise one uniform draw for the brain's softmax: over a policy's logits at
   `temperature`, over searched or heuristic values at `value_temperature`; a
   search gets `search_worlds` of the strength as its budget.

What is served (decided deliberately; calibration measures exactly this):
the ±5 per move applies to a level's own brains (the heuristic of easy and
medium, the search of master and of hard without a model, a registered agent
at a level); the learned policy (hard with ``models/default-v3.onnx``, decided in
the pool's batches) and a plain agent given bot settings (the pool's fallback,
`InlineDecider`) play at the game's strength. Those are the draws the server
has made since the pool's batched path was written, so every stored game's bot
moves still follow from its seeds; `LevelAgent` (what `wizard calibrate` and
`wizard evaluate` play) draws the same way, so a calibrated hard bot is the
served one.

`draw_rows` is the batched form (the pool's workers, one row per bot) and
calls `move_draw` for each row; `choose_rows` is the softmax choice for a whole
batch of policy rows, and `LevelAgent` uses it for its single row, so a
model decision is the same code in and out of the pool.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

#: The one strength table (also in docs/ai.md), interpolated linearly between rows:
#: (strength, chance of a random legal move, policy softmax temperature (logits),
#: value softmax temperature (round points), search worlds).
STRENGTH_TABLE: tuple[tuple[int, float, float, float, float], ...] = (
    (0, 0.35, 2.0, 25.0, 1),
    (25, 0.15, 1.0, 15.0, 1),
    (50, 0.05, 0.5, 8.0, 1),
    (75, 0.01, 0.2, 4.0, 3),
    (85, 0.006, 0.12, 2.0, 12),
    (100, 0.0, 0.0, 0.0, 32),
)
#: how far a bot's strength varies from move to move around the strength drawn for the game
STRENGTH_JITTER = 5
#: the brain that plays at the game's strength (no ±5): the learned policy
POLICY_BRAIN = "model"


def _interpolate(strength: float, column: int) -> float:
    strength = min(100.0, max(0.0, strength))
    for (s0, *v0), (s1, *v1) in itertools.pairwise(STRENGTH_TABLE):
        if strength <= s1:
            t = (strength - s0) / (s1 - s0)
            return v0[column] + t * (v1[column] - v0[column])
    return float(STRENGTH_TABLE[-1][column + 1])


def random_move_chance(strength: float) -> float:
    """``random_move_chance(0) == 0.35``, ``random_move_chance(100) == 0.0``."""
    return _interpolate(strength, 0)


def temperature(strength: float) -> float:
    """The softmax temperature over a learned policy's logits: ``temperature(100) == 0.0``."""
    return _interpolate(strength, 1)


def value_temperature(strength: float) -> float:
    """The softmax temperature, in round points, over searched or heuristic values."""
    return _interpolate(strength, 2)


def search_worlds(strength: float) -> int:
    """The search budget (worlds) of a strength: ``search_worlds(100) == 32``."""
    return max(1, round(_interpolate(strength, 3)))


#: (random-move chance, policy temperature, value temperature, worlds) of each strength 0–100
_BY_STRENGTH = tuple((random_move_chance(s), temperature(s), value_temperature(s),
                      search_worlds(s)) for s in range(101))


def move_strength(strength: int, rng: random.Random) -> int:
    """This move's strength: the game's ±`STRENGTH_JITTER`, kept within 0–100 (one draw)."""
    return min(100, max(0, strength + rng.randint(-STRENGTH_JITTER, STRENGTH_JITTER)))


def varies_per_move(brain: str | None) -> bool:
    """Whether ``brain``'s strength varies by ±5 per move (see the module docstring).

    ``None`` is a plain agent given bot settings (a fallback).

    >>> varies_per_move("search"), varies_per_move(POLICY_BRAIN), varies_per_move(None)
    (True, False, False)
    """
    return brain is not None and brain != POLICY_BRAIN


def move_rng(seed: int, move_number: int) -> random.Random:
    """The generator of a bot's decision at ``move_number`` of the game."""
    return random.Random(f"bot:{seed}:{move_number}")


class MoveDraw(NamedTuple):
    """One decision's draws: the move's strength, a random move (an index into the legal
    actions, -1 for none) and the uniform draw for the brain's softmax (0.0 after a
    random move)."""

    strength: int
    random_pick: int
    uniform: float

    @property
    def temperature(self) -> float:
        """The policy's softmax temperature at this move's strength."""
        return _BY_STRENGTH[self.strength][1]

    @property
    def value_temperature(self) -> float:
        """The softmax temperature (round points) over values at this move's strength."""
        return _BY_STRENGTH[self.strength][2]

    @property
    def worlds(self) -> int:
        """The search budget at this move's strength."""
        return _BY_STRENGTH[self.strength][3]


def move_draw(strength: int, seed: int, move_number: int, legal_count: int, *,
              varies: bool) -> MoveDraw:
    """The draws of a bot of ``strength`` and ``seed`` at ``move_number`` (the recipe above).

    Raises `ValueError` for a strength outside 0–100 or no legal action.

    >>> move_draw(10, seed=7, move_number=0, legal_count=5, varies=True)
    MoveDraw(strength=5, random_pick=3, uniform=0.0)
    >>> move_draw(100, seed=7, move_number=3, legal_count=5, varies=False).uniform
    0.6744226417983821
    """
    if not 0 <= strength <= 100:
        raise ValueError(f"bot strength must be within 0-100, got {strength!r}")
    if legal_count < 1:
        raise ValueError("a move without a legal action cannot be drawn")
    rng = move_rng(seed, move_number)
    if varies:
        strength = move_strength(strength, rng)
    if rng.random() < _BY_STRENGTH[strength][0]:
        # the same draw as ``rng.choice(legal_actions)``: an index below the count
        return MoveDraw(strength, rng.choice(range(legal_count)), 0.0)
    return MoveDraw(strength, -1, rng.random())


def draw_rows(rows: Sequence[tuple[int, int, int] | None], legal_counts: Sequence[int], *,
              varies: bool) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64],
                                     npt.NDArray[np.float64]]:
    """`move_draw` for a batch: each row ``(strength, seed, move number)`` or ``None``
    (no bot: the policy's best action).

    Returns the random picks (-1: none), the policy temperatures (0 for a random
    move or no bot) and the uniform draws, one per row, for `choose_rows`.
    """
    picks, temperatures, uniforms = [], [], []
    for row, legal_count in zip(rows, legal_counts, strict=True):
        if row is None:
            draw = MoveDraw(100, -1, 0.0)
        else:
            draw = move_draw(*row, legal_count, varies=varies)
        picks.append(draw.random_pick)
        temperatures.append(draw.temperature if draw.random_pick < 0 else 0.0)
        uniforms.append(draw.uniform)
    return (np.array(picks, dtype=np.int64), np.array(temperatures, dtype=np.float64),
            np.array(uniforms, dtype=np.float64))


def choose_rows(
    logits: npt.NDArray[np.float32],
    masks: npt.NDArray[np.bool_],
    temperatures: npt.NDArray[np.float64],
    uniforms: npt.NDArray[np.float64],
) -> npt.NDArray[np.int64]:
    """The policy's choice for each row: `wizard.ai.policy.choose` for a whole batch.

    Row ``i`` takes the best legal action when ``temperatures[i] <= 0``, else
    samples the softmax at that temperature with the draw ``uniforms[i]``.
    Raises `ValueError` when a row has no legal action or the shapes disagree.
    """
    if logits.shape != masks.shape:
        raise ValueError(f"policy logits have shape {logits.shape}, masks {masks.shape}")
    if not masks.any(axis=1).all():
        raise ValueError("a row without a legal action cannot be decided")
    values = np.where(masks, logits, -np.inf)
    best: npt.NDArray[np.int64] = values.argmax(axis=1).astype(np.int64)
    sampled = np.flatnonzero(temperatures > 0.0)
    if sampled.size:
        weights = values[sampled].astype(np.float64)
        weights -= weights.max(axis=1, keepdims=True)
        weights /= temperatures[sampled, None]
        np.exp(weights, out=weights)  # exp(-inf) = 0: illegal actions get no weight
        np.cumsum(weights, axis=1, out=weights)
        # the first position whose cumulative weight exceeds the draw's share of the total;
        # the sum is flat across illegal actions, so that position is a legal one (as in
        # `choose`, which normalises first: the same pick but for rounding at a boundary)
        picks = (weights <= uniforms[sampled, None] * weights[:, -1:]).sum(axis=1)
        over = np.flatnonzero(picks >= masks.shape[1])
        for row in over:  # a draw that rounds to the total takes the last legal action
            picks[row] = np.flatnonzero(masks[sampled[row]])[-1]
        best[sampled] = picks
    return best


__all__ = ["POLICY_BRAIN", "STRENGTH_JITTER", "STRENGTH_TABLE", "MoveDraw", "choose_rows",
           "draw_rows", "move_draw", "move_rng", "move_strength", "random_move_chance",
           "search_worlds", "temperature", "value_temperature", "varies_per_move"]
