"""The deal: which cards each round of a game deals, from the game's seed alone.

A pure function of ``(seed, players, rounds)``: a game replays identically from its
seed and its actions, and a copy of a game needs no random generator state.

>>> orders = deal_orders(7, 4)
>>> len(orders), len(orders[0]), len(orders[-1])  # 15 rounds; 4 cards + turned, 60
(15, 5, 60)
>>> deal_orders(7, 4, rounds=3) == orders[:3]  # a short game deals the first rounds
True
"""

from __future__ import annotations

import random
import struct

from .cards import NUM_CARDS
from .rules import total_rounds

_KEYS = struct.Struct("<60Q").unpack


def deal_orders(
    seed: int, num_players: int, rounds: int | None = None
) -> tuple[tuple[int, ...], ...]:
    """For every round of the game with ``seed``: the dealt cards then the turned card.

    ``rounds`` (default: the full game) is how many rounds to deal; a short game's
    deals are the first rounds of the full game with the same seed.

    One generator per game (string seeding hashes with SHA-512, so negative and
    positive seeds do not collide). Each round draws 60 64-bit keys, read
    little-endian so the deal is the same on every platform, and runs as many
    Fisher–Yates steps as it needs cards. A pure function of its arguments.
    """
    rng = random.Random(f"wizard:{seed}")
    orders = []
    for round_number in range(1, total_rounds(num_players, rounds) + 1):
        needed = min(num_players * round_number + 1, NUM_CARDS)
        keys = _KEYS(rng.getrandbits(64 * NUM_CARDS).to_bytes(8 * NUM_CARDS, "little"))
        deck = list(range(NUM_CARDS))
        for i in range(needed):
            j = i + (keys[i] * (NUM_CARDS - i) >> 64)
            deck[i], deck[j] = deck[j], deck[i]
        orders.append(tuple(deck[:needed]))
    return tuple(orders)


def first_dealer_for(seed: int, num_players: int) -> int:
    """The seat that deals the first round of the game with ``seed``.

    >>> first_dealer_for(7, 4) in range(4)
    True
    """
    return random.Random(f"wizard:{seed}:dealer").randrange(num_players)


__all__ = ["deal_orders", "first_dealer_for"]
