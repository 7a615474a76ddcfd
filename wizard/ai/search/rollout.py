"""The heuristic on `GameCore` integers: the rollout policy of the search bot.

`HeuristicAgent` decides from an `Observation` (objects, tuples, dataclasses);
a search plays hundreds of thousands of moves per decision and cannot afford
that. This module is the same heuristic written on the engine's fast path:
card masks, the core's lists and plain ints, no allocation per move. It makes
the same choice as `HeuristicAgent` in every position (tested with hypothesis
over random positions), so there is one heuristic with two forms.

- `heuristic_bid`, `heuristic_card`, `heuristic_trump`: the choice of the seat
  to move in a core;
- `finish_round`: play the rest of the current round with the heuristic for
  every seat; the search's rollout.

>>> from wizard.engine import GameCore
>>> core = GameCore(4, seed=3)
>>> 0 <= heuristic_bid(core) <= 1
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from wizard.engine import GameCore, ids_of
from wizard.engine.cards import CARD_RANK, CARD_SUIT, NUM_CARDS, SUIT_MASKS
from wizard.engine.core import BIDDING, CHOOSING_TRUMP, PLAYING, ROUND_DONE
from wizard.engine.rules import round_score

from ..agents.heuristic import expected_tricks

_PLAY_BASE = 21
_TRUMP_BASE = 81

#: ``STRENGTH[trump + 1][lead + 1][card]``: `card_strength` as a table (lead -1 = none)
STRENGTH: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(
            0 if c >= 56 else 100 if c >= 52
            else 40 + CARD_RANK[c] if CARD_SUIT[c] == trump
            else 20 + CARD_RANK[c] if CARD_SUIT[c] == lead
            else CARD_RANK[c]
            for c in range(NUM_CARDS)
        )
        for lead in range(-1, 4)
    )
    for trump in range(-1, 4)
)
#: ``TRUMP_KEY[trump + 1][card]``: rank + 100 for trump cards, else rank (number cards only)
TRUMP_KEY: tuple[tuple[int, ...], ...] = tuple(
    tuple(CARD_RANK[c] + (100 if CARD_SUIT[c] == trump else 0) for c in range(NUM_CARDS))
    for trump in range(-1, 4)
)



def closest_bid(expected: float, legal_bids: int) -> int:
    """The legal bid (a mask of bid values) closest to ``expected``; ties take the lower bid.

    >>> closest_bid(1.5, 0b111)
    1
    """
    best, best_gap = -1, 0.0
    value = 0
    while legal_bids:
        if legal_bids & 1:
            gap = abs(value - expected)
            if best < 0 or gap < best_gap:
                best, best_gap = value, gap
        legal_bids >>= 1
        value += 1
    return best


def heuristic_bid(core: GameCore) -> int:
    """`HeuristicAgent`'s bid for the seat to move (phase bidding)."""
    expected = expected_tricks(ids_of(core.hands[core.current]), core.trump_suit, core.n)
    return closest_bid(expected, core.legal_mask())


def heuristic_trump(hand: int) -> int:
    """`HeuristicAgent`'s trump suit for a hand mask: most cards, then highest rank sum."""
    best, best_key = 0, (-1, -1)
    for suit in range(4):
        cards = hand & SUIT_MASKS[suit]
        key = (cards.bit_count(), sum(CARD_RANK[c] for c in ids_of(cards)))
        if key > best_key:
            best, best_key = suit, key
    return best


def heuristic_card(core: GameCore) -> int:
    """`HeuristicAgent`'s card (an id) for the seat to move (phase playing)."""
    player = core.current
    return heuristic_choice(core.legal_mask() >> _PLAY_BASE, core.trick, core.trump_suit,
                            core.lead, core.bids[player] - core.tricks[player], core.n)


def heuristic_choice(legal: int, trick: list[int], trump: int, lead: int, needed: int,
                     n: int) -> int:
    """`HeuristicAgent`'s card among the ``legal`` card mask, with ``trick`` on the table
    (its ``lead`` suit, -1 none), ``needed`` tricks still to take, ``n`` seats: the
    rollout's choice and the play inference's model of a seat (`wizard.ai.search.plays`)."""
    position = len(trick)
    strength = STRENGTH[trump + 1][lead + 1 if 0 <= lead < 4 else 0]
    # what a new card must beat: the key of the best card so far (-1: nothing yet)
    wizard_played = False
    trick_suit = -1
    best_key = -1
    if position:
        keys = TRUMP_KEY[trump + 1]
        for card in trick:
            if card >= 56:
                continue
            if card >= 52:
                wizard_played = True
                break
            suit = CARD_SUIT[card]
            if trick_suit < 0:
                trick_suit = suit
            key = keys[card] if suit in (trump, trick_suit) else -1
            if key > best_key:
                best_key = key
    # one pass over the legal cards in id order, keeping the first best of each kind,
    # as min()/max() over `legal_actions` (ascending ids) do in `HeuristicAgent`
    strong_win = weak_win = strong_lose = weak_any = -1
    strong_win_s = weak_win_s = strong_lose_s = weak_any_s = 0
    mask = legal
    while mask:
        low = mask & -mask
        card = low.bit_length() - 1
        mask ^= low
        s = strength[card]
        if position == 0:
            wins = True
        elif wizard_played or card >= 56:
            wins = False
        elif card >= 52:
            wins = True
        else:
            suit = CARD_SUIT[card]
            if suit == trump:
                wins = CARD_RANK[card] + 100 > best_key
            elif trick_suit < 0 or suit == trick_suit:
                wins = CARD_RANK[card] > best_key
            else:
                wins = False
        if weak_any < 0 or s < weak_any_s:
            weak_any, weak_any_s = card, s
        if wins:
            if strong_win < 0 or s > strong_win_s:
                strong_win, strong_win_s = card, s
            if weak_win < 0 or s < weak_win_s:
                weak_win, weak_win_s = card, s
        elif strong_lose < 0 or s > strong_lose_s:
            strong_lose, strong_lose_s = card, s
    if needed > 0:
        if strong_win >= 0:
            return weak_win if position == n - 1 else strong_win
        return weak_any
    return strong_lose if strong_lose >= 0 else weak_any


@functools.lru_cache(maxsize=4096)
def _ranked_around(trump: int, lead: int, card: int) -> tuple[int, int]:
    """The masks of cards `heuristic_choice` would take over ``card`` as the weakest and as
    the strongest of a kind: its walk in id order keeps the first of equal strength."""
    strength = STRENGTH[trump + 1][lead + 1 if 0 <= lead < 4 else 0]
    mine = strength[card]
    weaker = sum(1 << c for c in range(NUM_CARDS)
                 if strength[c] < mine or (strength[c] == mine and c < card))
    stronger = sum(1 << c for c in range(NUM_CARDS)
                   if strength[c] > mine or (strength[c] == mine and c < card))
    return weaker, stronger


def heuristic_picks(card: int, trick: Sequence[int], trump: int, lead: int, needed: int,
                    n: int) -> Callable[[int], bool]:
    """A test of legal card masks: would `heuristic_choice` over one pick ``card``?

    For a model that scores one observed play against many possible hands: the
    trick is read once here, and each test is a few mask operations where
    `heuristic_choice` walks the legal cards (same answers, tested with
    hypothesis over random tricks and masks).

    >>> picks = heuristic_picks(12, [], trump=-1, lead=-1, needed=1, n=4)  # red 13 led
    >>> picks(1 << 12 | 1 << 11), picks(1 << 12 | 1 << 52)  # beside red 12; beside a wizard
    (True, False)
    """
    position = len(trick)
    # the trick read as `heuristic_choice` reads it (written out there, on the rollouts'
    # hot path, rather than shared through a call)
    wizard_played, trick_suit, best_key = False, -1, -1
    keys = TRUMP_KEY[trump + 1]
    for played in trick:
        if played >= 56:
            continue
        if played >= 52:
            wizard_played = True
            break
        suit = CARD_SUIT[played]
        if trick_suit < 0:
            trick_suit = suit
        key = keys[played] if suit in (trump, trick_suit) else -1
        best_key = max(best_key, key)
    winning = 0  # the cards that would take the trick as it lies (`heuristic_choice`'s rule)
    for other in range(NUM_CARDS):
        if position == 0:
            wins = True
        elif wizard_played or other >= 56:
            wins = False
        elif other >= 52:
            wins = True
        elif CARD_SUIT[other] == trump:
            wins = CARD_RANK[other] + 100 > best_key
        elif trick_suit < 0 or CARD_SUIT[other] == trick_suit:
            wins = CARD_RANK[other] > best_key
        else:
            wins = False
        winning |= wins << other
    losing = ((1 << NUM_CARDS) - 1) & ~winning
    weaker, stronger = _ranked_around(trump, lead, card)
    bit = 1 << card
    wanted, wanted_better = (winning, weaker if position == n - 1 else stronger) \
        if needed > 0 else (losing, stronger)

    def picks(legal: int) -> bool:
        if not legal & bit:
            return False
        kind = legal & wanted
        if kind:  # the heuristic takes the best card of the kind it wants
            return bool(bit & wanted) and not kind & wanted_better
        return not legal & weaker  # none of that kind: the weakest card

    return picks


def heuristic_action(core: GameCore) -> int:
    """The heuristic's action index for the seat to move in any phase but finished."""
    phase = core.phase
    if phase == PLAYING:
        return _PLAY_BASE + heuristic_card(core)
    if phase == BIDDING:
        return heuristic_bid(core)
    if phase == CHOOSING_TRUMP:
        return _TRUMP_BASE + heuristic_trump(core.hands[core.current])
    raise ValueError("the game is over: no seat is to move")


def finish_round(core: GameCore) -> None:
    """Play the rest of the current round (bids included) with the heuristic for every seat.

    Afterwards ``core.last_bids`` / ``core.last_tricks`` / ``core.last_changes``
    describe the round (the core has dealt the next one, or finished the game).
    """
    apply = core.apply
    while True:
        phase = core.phase
        if phase == PLAYING:
            if apply(_PLAY_BASE + heuristic_card(core)) >= ROUND_DONE:
                return
        elif phase == BIDDING:
            apply(heuristic_bid(core))
        elif phase == CHOOSING_TRUMP:
            apply(_TRUMP_BASE + heuristic_trump(core.hands[core.current]))
        else:
            raise ValueError("the game is over: no round to finish")


def rollout_score(core: GameCore, seat: int) -> tuple[int, int]:
    """Finish the round with the heuristic; ``seat``'s (round points, tricks taken)."""
    finish_round(core)
    tricks = core.last_tricks[seat]
    return round_score(core.last_bids[seat], tricks), tricks


__all__ = ["closest_bid", "finish_round", "heuristic_action", "heuristic_bid", "heuristic_card",
           "heuristic_choice", "heuristic_picks", "heuristic_trump", "rollout_score"]
