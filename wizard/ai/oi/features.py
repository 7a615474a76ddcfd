"""Per-card features of the OI strategy, and the cases it decides without a network.

Both OI networks read the same per-card vector of `OI_FEATURE_SIZE` float32
values (blocks in `OI_BLOCKS`): a context shared by every card of one decision
(players, bids and tricks still wanted, what is unseen), the card itself (its
kind, its suit's unseen ranks, its adjusted rank, how many unseen cards beat
it) and the current trick (lead, the lead suit's unseen ranks, players still
to come, whether the card would win the trick as it lies now). "Unseen" means
neither in my hand, nor played this round, nor the turned trump card: another
hand or the undealt rest of the deck.

`immediate_exact` and `overall_exact` give the probabilities known without a
network (the first wizard of a trick wins, ...) or ``None`` where the network
has to be asked. Changing the layout means bumping `OI_FEATURE_VERSION`; the
model cards record the version they were trained with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from wizard.engine import Observation, Phase
from wizard.engine.cards import (
    ALL_CARDS_MASK,
    CARD_RANK,
    CARD_SUIT,
    FIRST_JESTER,
    FIRST_WIZARD,
    JESTER_MASK,
    SUIT_MASKS,
    WIZARD_MASK,
)
from wizard.engine.rules import LEAD_FREE, LEAD_NONE, lead_of, trick_winner

#: 2: the current trick's blocks (``lead``, ``lead_unseen``, ``players_after``, the third
#: ``card_vs_trick``) reach the networks; version 1 zeroed them with the card's blocks
#: (networks of version 1 still read version 1 rows: `card_features`' ``version``)
OI_FEATURE_VERSION = 2
#: the feature versions a network may be trained with and still be served
OI_FEATURE_VERSIONS = (1, 2)
MAX_SEATS = 6
MAX_HAND = 20
SEAT_FEATURES = 9

# (name, size) in order; slices are derived so the layout is written down once.
_LAYOUT: tuple[tuple[str, int], ...] = (
    # context: the same for every card of a decision
    ("num_players", 4),  # one-hot 3, 4, 5, 6
    ("hand_size", MAX_HAND),  # one-hot cards in my hand, 1-20
    ("bidding", 1),  # the decision is a bid (or the dealer's trump choice)
    ("seats", MAX_SEATS * SEAT_FEATURES),
    # per seat, me first then the next seats: present, tricks still wanted one-hot
    # (unknown, <= -1, 0, 1, 2, 3, >= 4), has played in the current trick
    ("bid_balance", 2),  # (known bids - cards dealt) / 10, others' known wanted / 10
    ("trick_position", MAX_SEATS),  # one-hot my place in the current (or first) trick
    ("trump", 14),  # the trump suit's ranks 1-13 still unseen, no-trump flag
    ("unseen_wizards", 5),  # one-hot 0-4
    ("unseen_jesters", 5),  # one-hot 0-4
    ("voids", 5),  # one-hot suits I hold none of, 0-4
    ("unseen_in_hands", 1),  # cards in the other hands / unseen cards
    # the card
    ("kind", 4),  # wizard, jester, trump number, other number
    ("suit_unseen", 13),  # the card's suit: ranks 1-13 still unseen
    ("adjusted_rank", 13),  # one-hot 12 - (unseen higher cards of its suit)
    ("suit_count", 7),  # one-hot my cards of its suit, 1-6, 7+ (all zero: not a number)
    ("own_specials", 2),  # my wizards / 4, my jesters / 4
    ("beaters", 7),  # one-hot unseen cards that beat it: 0, 1, 2, 3, 4, 5-7, 8+
    # the current trick
    ("lead", 4),  # one-hot nothing to follow, trump led, another suit led, wizard in trick
    ("lead_unseen", 13),  # the lead suit's ranks still unseen
    ("players_after", MAX_SEATS),  # one-hot players still to play after me, 0-5
    ("card_vs_trick", 3),  # follows the lead suit, wins the trick as it lies, trick held by trump
)


def _slices() -> dict[str, slice]:
    out, start = {}, 0
    for name, size in _LAYOUT:
        out[name] = slice(start, start + size)
        start += size
    return out


OI_BLOCKS: dict[str, slice] = _slices()
OI_FEATURE_SIZE: int = sum(size for _, size in _LAYOUT)
_S = {name: s.start for name, s in OI_BLOCKS.items()}
CONTEXT_SIZE = _S["kind"]
#: the blocks of the card itself (the context's come before, the trick's after)
CARD_BLOCKS = slice(_S["kind"], _S["lead"])

#: _BITS13[m] is the 13-bit mask m as 13 floats (rank 1 first)
_BITS13: npt.NDArray[np.float32] = (
    (np.arange(1 << 13)[:, None] >> np.arange(13)) & 1).astype(np.float32)
_BEATER_BUCKETS = (0, 1, 2, 3, 4, 5, 5, 5)  # 8 and more: 6


def _beater_bucket(count: int) -> int:
    return _BEATER_BUCKETS[count] if count < 8 else 6


@dataclass(frozen=True, slots=True)
class Situation:
    """What the features of one decision need, as ints and masks (built by `situation_of`)."""

    num_players: int
    me: int
    hand: tuple[int, ...]
    hand_mask: int
    trump: int  # suit index, -1 for none
    trick: tuple[int, ...]
    unseen: int  # mask of cards not in my hand, not played this round, not the turned card
    bidding: bool
    position: int  # my place in the current trick (the first trick while bidding)
    bids: tuple[int | None, ...]  # per seat, None while unknown
    wanted: tuple[int | None, ...]  # per seat: bid - tricks won, None while unknown
    played_now: tuple[bool, ...]  # per seat: has a card in the current trick
    round_number: int
    cards_in_other_hands: int

    @property
    def players_after(self) -> int:
        return self.num_players - 1 - self.position


def situation_of(obs: Observation, trump: int | None = None) -> Situation:
    """The `Situation` of a seat's observation; ``trump`` overrides the trump suit index.

    Raises `ValueError` for a spectator's observation.
    """
    me = obs.player
    if me is None:
        raise ValueError("OI features are a seat's view; got a spectator's observation")
    n = obs.num_players
    hand = tuple(c.id for c in obs.hand)
    hand_mask = 0
    for card_id in hand:
        hand_mask |= 1 << card_id
    seen = hand_mask
    for card in obs.played_cards:
        seen |= 1 << card.id
    if obs.trump_card is not None:
        seen |= 1 << obs.trump_card.id
    if trump is None:
        trump = obs.trump_suit.index if obs.trump_suit is not None else -1
    trick = tuple(p.card.id for p in obs.current_trick)
    played_now = [False] * n
    for p in obs.current_trick:
        played_now[p.player] = True
    wanted = tuple(None if bid is None else bid - won
                   for bid, won in zip(obs.bids, obs.tricks_won, strict=True))
    bidding = obs.phase is not Phase.PLAYING
    return Situation(
        num_players=n,
        me=me,
        hand=hand,
        hand_mask=hand_mask,
        trump=trump,
        trick=trick,
        unseen=ALL_CARDS_MASK & ~seen,
        bidding=bidding,
        position=(me - obs.trick_leader) % n,
        bids=obs.bids,
        wanted=wanted,
        played_now=tuple(played_now),
        round_number=obs.round_number,
        cards_in_other_hands=sum(obs.hand_sizes) - len(hand),
    )


def _wanted_slot(wanted: int | None) -> int:
    if wanted is None:
        return 0
    return 1 + min(5, max(0, wanted + 1))


def context_row(sit: Situation) -> npt.NDArray[np.float32]:
    """The context block (every feature before ``kind``) of one decision."""
    row = np.zeros(OI_FEATURE_SIZE, dtype=np.float32)
    n, me = sit.num_players, sit.me
    row[_S["num_players"] + n - 3] = 1.0
    row[_S["hand_size"] + min(MAX_HAND, max(1, len(sit.hand))) - 1] = 1.0
    row[_S["bidding"]] = sit.bidding
    known_bids = 0
    others_wanted = 0
    for k in range(n):
        seat = (me + k) % n
        base = _S["seats"] + k * SEAT_FEATURES
        wanted = sit.wanted[seat]
        row[base] = 1.0
        row[base + 1 + _wanted_slot(wanted)] = 1.0
        row[base + 8] = sit.played_now[seat]
        bid = sit.bids[seat]
        if bid is not None:
            known_bids += bid
        if wanted is not None and k:
            others_wanted += wanted
    row[_S["bid_balance"]] = (known_bids - sit.round_number) / 10.0
    row[_S["bid_balance"] + 1] = others_wanted / 10.0
    row[_S["trick_position"] + sit.position] = 1.0
    if sit.trump >= 0:
        row[OI_BLOCKS["trump"].start:OI_BLOCKS["trump"].start + 13] = _BITS13[
            (sit.unseen >> (13 * sit.trump)) & 0x1FFF]
    else:
        row[_S["trump"] + 13] = 1.0
    row[_S["unseen_wizards"] + (sit.unseen & WIZARD_MASK).bit_count()] = 1.0
    row[_S["unseen_jesters"] + (sit.unseen & JESTER_MASK).bit_count()] = 1.0
    voids = sum(1 for mask in SUIT_MASKS if not sit.hand_mask & mask)
    row[_S["voids"] + voids] = 1.0
    unseen_count = sit.unseen.bit_count()
    row[_S["unseen_in_hands"]] = sit.cards_in_other_hands / unseen_count if unseen_count else 0.0
    lead = lead_of(sit.trick)
    if lead == LEAD_FREE:
        row[_S["lead"] + 3] = 1.0
    elif lead == LEAD_NONE:
        row[_S["lead"]] = 1.0
    else:
        row[_S["lead"] + (1 if lead == sit.trump else 2)] = 1.0
        start = _S["lead_unseen"]
        row[start:start + 13] = _BITS13[(sit.unseen >> (13 * lead)) & 0x1FFF]
    row[_S["players_after"] + sit.players_after] = 1.0
    if sit.trick:
        held = sit.trick[trick_winner(sit.trick, sit.trump)]
        row[_S["card_vs_trick"] + 2] = held < FIRST_WIZARD and CARD_SUIT[held] == sit.trump
    return row


def unseen_beaters(sit: Situation, card: int) -> int:
    """Unseen cards that would beat number card ``card`` if it led or held a trick."""
    suit, rank = CARD_SUIT[card], CARD_RANK[card]
    higher = ((sit.unseen & SUIT_MASKS[suit]) >> (13 * suit + rank)).bit_count()
    count = (sit.unseen & WIZARD_MASK).bit_count() + higher
    if sit.trump >= 0 and suit != sit.trump:
        count += (sit.unseen & SUIT_MASKS[sit.trump]).bit_count()
    return count


def clear_card_blocks(rows: npt.NDArray[np.float32], version: int) -> None:
    """Zero the blocks of ``rows`` (``(..., OI_FEATURE_SIZE)``, copies of `context_row`) that
    each card fills in: its own and its standing in the trick; in ``version`` 1 the
    trick's blocks too. Raises `ValueError` for a version no network is served with."""
    if version not in OI_FEATURE_VERSIONS:
        raise ValueError(f"OI feature version {version!r} is not one of {OI_FEATURE_VERSIONS}")
    if version == 1:
        rows[..., CONTEXT_SIZE:] = 0.0
        return
    rows[..., CARD_BLOCKS] = 0.0
    rows[..., _S["card_vs_trick"]:_S["card_vs_trick"] + 2] = 0.0


def card_features(sit: Situation, cards: Sequence[int],
                  version: int = OI_FEATURE_VERSION) -> npt.NDArray[np.float32]:
    """Feature rows ``(len(cards), OI_FEATURE_SIZE)`` of ``cards`` in situation ``sit``.

    ``version`` 1 gives the rows networks of feature version 1 were trained on (the
    trick's blocks all zero).

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=1)
    >>> obs = game.observation(game.current_player)
    >>> card_features(situation_of(obs), [c.id for c in obs.hand]).shape
    (1, 189)
    """
    out = np.empty((len(cards), OI_FEATURE_SIZE), dtype=np.float32)
    out[:] = context_row(sit)
    clear_card_blocks(out, version)
    wizards = (sit.hand_mask & WIZARD_MASK).bit_count() / 4.0
    jesters = (sit.hand_mask & JESTER_MASK).bit_count() / 4.0
    lead = lead_of(sit.trick)
    for row, card in zip(out, cards, strict=True):
        row[_S["own_specials"]] = wizards
        row[_S["own_specials"] + 1] = jesters
        if card >= FIRST_JESTER:
            row[_S["kind"] + 1] = 1.0
        elif card >= FIRST_WIZARD:
            row[_S["kind"]] = 1.0
        else:
            suit, rank = CARD_SUIT[card], CARD_RANK[card]
            row[_S["kind"] + (2 if suit == sit.trump else 3)] = 1.0
            suit_unseen = (sit.unseen >> (13 * suit)) & 0x1FFF
            start = _S["suit_unseen"]
            row[start:start + 13] = _BITS13[suit_unseen]
            row[_S["adjusted_rank"] + 12 - (suit_unseen >> rank).bit_count()] = 1.0
            mine = (sit.hand_mask & SUIT_MASKS[suit]).bit_count()
            row[_S["suit_count"] + min(7, mine) - 1] = 1.0
            row[_S["beaters"] + _beater_bucket(unseen_beaters(sit, card))] = 1.0
            row[_S["card_vs_trick"]] = suit == lead
        if trick_winner((*sit.trick, card), sit.trump) == len(sit.trick):
            row[_S["card_vs_trick"] + 1] = 1.0
    return out


def immediate_exact(sit: Situation, card: int) -> float | None:
    """p_I of ``card`` when it is certain: 1.0 or 0.0; ``None`` where the network decides.

    The first wizard of a trick wins (1); once a wizard is in the trick every
    later card loses (0); a jester wins only when it leads and every other
    card of the trick is a jester (0 when too few jesters are unseen, 1 when
    only jesters are unseen); a card that cannot beat the trick as it lies
    loses (0); a card that wins it and is the last, or that no unseen card can
    beat, wins (1).

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=1)
    >>> sit = situation_of(game.observation(game.current_player))
    >>> immediate_exact(sit, 52)  # a wizard leading the trick
    1.0
    """
    trick = sit.trick
    if any(FIRST_WIZARD <= c < FIRST_JESTER for c in trick):
        return 0.0
    if FIRST_WIZARD <= card < FIRST_JESTER:
        return 1.0
    after = sit.players_after
    if card >= FIRST_JESTER:
        if trick:
            return 0.0  # behind a jester the first jester wins; behind anything else it loses
        if not sit.unseen & ~JESTER_MASK:
            return 1.0
        if (sit.unseen & JESTER_MASK).bit_count() < after:
            return 0.0
        return None
    if trick_winner((*trick, card), sit.trump) != len(trick):
        return 0.0
    if after == 0 or unseen_beaters(sit, card) == 0:
        return 1.0
    return None


def overall_exact(sit: Situation, card: int) -> float | None:
    """p_O of ``card`` when it is certain, else ``None``.

    A jester takes a trick only in a trick of nothing but jesters, which needs
    ``players - 1`` more jesters: 0 when fewer are unseen. With one card left
    in hand while playing, p_O is p_I (the round is this trick).
    """
    if card >= FIRST_JESTER and (sit.unseen & JESTER_MASK).bit_count() < sit.num_players - 1:
        return 0.0
    if not sit.bidding and len(sit.hand) == 1:
        return immediate_exact(sit, card)
    return None


__all__ = ["CARD_BLOCKS", "OI_BLOCKS", "OI_FEATURE_SIZE", "OI_FEATURE_VERSION",
           "OI_FEATURE_VERSIONS", "Situation", "card_features", "clear_card_blocks", "context_row",
           "immediate_exact", "overall_exact", "situation_of", "unseen_beaters"]
