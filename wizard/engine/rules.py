"""Stateless rule functions on card ids. The fast path and the checked API both use these.

Lead states (what a later player must follow in the current trick):

- ``LEAD_NONE`` (-1): nothing sets a suit yet (empty trick, or only jesters so far);
- ``0``–``3``: the suit index that must be followed if the player holds it;
- ``LEAD_FREE`` (4): the first non-jester card was a wizard, so anything may be played.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import (
    CARD_RANK,
    CARD_SUIT,
    FIRST_JESTER,
    FIRST_WIZARD,
    JESTER_MASK,
    NUM_CARDS,
    SUIT_MASKS,
    WIZARD_MASK,
)

LEAD_NONE = -1
LEAD_FREE = 4

POINTS_FOR_EXACT_BID = 20
POINTS_PER_TRICK = 10
PENALTY_PER_TRICK_OFF = 10

MIN_PLAYERS = 3
MAX_PLAYERS = 6


MAX_ROUNDS = NUM_CARDS // MIN_PLAYERS  # 20: the longest game, three players


def total_rounds(num_players: int, rounds: int | None = None) -> int:
    """Rounds in a game: ``rounds`` for a short game, else the full 60 cards / players.

    >>> total_rounds(4), total_rounds(4, rounds=3)
    (15, 3)

    Raises `ValueError` for fewer than 3 or more than 6 players, and for a round
    count that is not an integer from 1 to the full count (``total_rounds(4, 16)``:
    "rounds must be 1-15 for 4 players, got 16").
    """
    if type(num_players) is not int or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be 3-6, got {num_players!r}")
    full = NUM_CARDS // num_players
    if rounds is None:
        return full
    if type(rounds) is not int or not 1 <= rounds <= full:
        raise ValueError(f"rounds must be 1-{full} for {num_players} players, got {rounds!r}")
    return rounds


def trump_suit_of(trump_card: int) -> int:
    """Trump suit index set by a turned card: its suit; -1 for none, a wizard or a jester.

    A turned wizard gives no trump here; with the option ``wizard_trump_dealer_chooses``
    the game asks the dealer instead.
    """
    if trump_card < 0:
        return -1
    return CARD_SUIT[trump_card]


def next_lead(lead: int, card: int) -> int:
    """The lead state after ``card`` is played into a trick in state ``lead``."""
    if lead != LEAD_NONE or card >= FIRST_JESTER:
        return lead
    if card >= FIRST_WIZARD:
        return LEAD_FREE
    return CARD_SUIT[card]


def lead_of(trick: Sequence[int]) -> int:
    """Lead state of a trick in progress: ``lead_of([56, 3]) == 0`` (jester, then red)."""
    lead = LEAD_NONE
    for card in trick:
        lead = next_lead(lead, card)
    return lead


def legal_cards_mask(hand: int, lead: int) -> int:
    """Cards of ``hand`` (a mask) that may be played in lead state ``lead``.

    Wizards and jesters are always allowed; a player holding the lead suit must
    follow it; otherwise anything goes.
    """
    if 0 <= lead < LEAD_FREE:
        following = hand & SUIT_MASKS[lead]
        if following:
            return following | (hand & (WIZARD_MASK | JESTER_MASK))
    return hand


def trick_winner(trick: Sequence[int], trump_suit: int) -> int:
    """Position (0 = first played) of the card that wins a complete trick.

    The first wizard wins; a trick of only jesters goes to the first jester;
    else the highest trump; else the highest card of the lead suit (set by the
    first card that is not a jester).

    >>> trick_winner([56, 3, 1], trump_suit=-1)  # jester, red 4, red 2
    1
    """
    best = 0
    best_key = -1
    lead = -1
    for position, card in enumerate(trick):
        if card >= FIRST_JESTER:
            continue
        if card >= FIRST_WIZARD:
            return position
        suit = CARD_SUIT[card]
        if lead < 0:
            lead = suit
        # trump beats the lead suit beats the rest (negative: never wins)
        key = CARD_RANK[card] + (100 if suit == trump_suit else 0 if suit == lead else -200)
        if key > best_key:
            best, best_key = position, key
    return best


def round_score(bid: int, tricks: int) -> int:
    """Points for one round: exact bid 20 + 10 per trick, else -10 per trick off.

    >>> round_score(2, 2), round_score(0, 0), round_score(1, 3)
    (40, 20, -20)
    """
    if bid == tricks:
        return POINTS_FOR_EXACT_BID + POINTS_PER_TRICK * tricks
    return -PENALTY_PER_TRICK_OFF * abs(bid - tricks)
