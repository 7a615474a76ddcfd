"""The policy's card play, one card ahead: each legal card valued by the policy's own tricks head.

A policy's card head imitates a teacher's choice; its tricks head predicts the
tricks the seat ends the round with. OI plays the card that makes its bid most
likely (`wizard.ai.oi`); the same question can be put to the tricks head: for
every legal card, the features as they read once that card is played
(`after_card`), and the expected round score of the seat's bid under the tricks
head's distribution there. A card row's decision logits become

    log p(card) + expected score after the card / points_per_logit

so the policy's choice stands unless the tricks head sees points in another card
(docs/ai.md measures it). Everything is read from the feature rows and masks the
pool already ships, so the pool's workers and the loop decide alike.

The features after a card, from the seat's view: the card leaves the hand and
joins the played cards and the trick; the trick position moves on; the lead
suit is set as `wizard.engine.rules.next_lead` sets it. When the card completes
the trick, the trick is resolved: a trick the seat wins counts for its tricks
(the rules of `wizard.engine.rules.trick_winner`), the trick and the lead are
cleared. Which opponent won a trick the seat lost is not in the features (they
hold the trick's cards, not who played them): the opponents' tricks stay as
they were. The next card's legal mask is the rest of the hand.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from wizard.engine import PLAY_BASE
from wizard.engine.cards import CARD_RANK, CARD_SUIT, FIRST_JESTER, FIRST_WIZARD, NUM_CARDS

from .encoding import BLOCKS, OPPONENT_FEATURES, ActionSpace

Features = npt.NDArray[np.float32]
Masks = npt.NDArray[np.bool_]

CARD_COLUMNS = slice(PLAY_BASE, PLAY_BASE + NUM_CARDS)  # the card actions' columns of a mask
_PHASE_PLAYING = BLOCKS["phase"].start + 1
_PLAYERS = BLOCKS["num_players"]
_POSITION = BLOCKS["trick_position"]
_HAND, _PLAYED, _TRICK = BLOCKS["hand"].start, BLOCKS["played"].start, BLOCKS["trick"].start
_TRUMP, _LEAD = BLOCKS["trump_suit"], BLOCKS["lead_suit"]
_OWN = BLOCKS["own"].start  # has bid, bid/20, tricks/20, (bid - tricks)/20, score/100
_PLAYED_NOW = slice(BLOCKS["opponents"].start + OPPONENT_FEATURES - 1, BLOCKS["opponents"].stop,
                    OPPONENT_FEATURES)  # each opponent's "already played in this trick"
_NO_SUIT = 4  # the "none" column of the trump and lead one-hots

_IDS = np.arange(NUM_CARDS)
_WIZARDS = (_IDS >= FIRST_WIZARD) & (_IDS < FIRST_JESTER)
_JESTERS = _IDS >= FIRST_JESTER
_SUIT = np.array(CARD_SUIT)  # -1: a wizard or a jester
_RANK = np.array(CARD_RANK)


def card_rows(features: Features, masks: Masks) -> npt.NDArray[np.int64]:
    """Rows that play a card with a choice of more than one."""
    playing = features[:, _PHASE_PLAYING] > 0.5
    return np.flatnonzero(playing & (masks[:, CARD_COLUMNS].sum(axis=1) > 1)).astype(np.int64)


def after_card(features: Features, cards: npt.NDArray[np.integer[Any]]) -> tuple[Features, Masks]:
    """Row ``i`` of ``features`` (a playing decision) as it reads once card ``cards[i]``
    is played, and the mask of the seat's next card (the rest of its hand)."""
    rows = np.arange(len(cards))
    out = features.copy()
    out[rows, _HAND + cards] = 0.0
    out[rows, _PLAYED + cards] = 1.0
    players = 3 + features[:, _PLAYERS].argmax(axis=1)
    position = features[:, _POSITION].argmax(axis=1)  # cards in the trick before this one
    trick = features[:, _TRICK:_TRICK + NUM_CARDS] > 0.5
    wizard_in: npt.NDArray[np.bool_] = np.asarray((trick & _WIZARDS).any(axis=1))
    lead = features[:, _LEAD].argmax(axis=1)  # 0-3, or 4: none yet (or a wizard led)
    suit = _SUIT[cards]
    sets_lead = (lead == _NO_SUIT) & ~wizard_in & (suit >= 0)
    completes = position + 1 >= players

    going_on = ~completes
    out[rows[going_on], _TRICK + cards[going_on]] = 1.0
    out[rows[going_on], _POSITION.start + position[going_on]] = 0.0
    out[rows[going_on], _POSITION.start + position[going_on] + 1] = 1.0
    setting = rows[going_on & sets_lead]
    out[setting, _LEAD.start + _NO_SUIT] = 0.0
    out[setting, _LEAD.start + suit[setting]] = 1.0

    won = completes & _wins(trick, cards, np.where(sets_lead, suit, lead),
                            features[:, _TRUMP].argmax(axis=1), wizard_in)
    winners = rows[won]
    bids = np.rint(features[winners, _OWN + 1] * 20.0)
    tricks = np.rint(features[winners, _OWN + 2] * 20.0) + 1.0
    out[winners, _OWN + 2] = tricks / 20.0  # as `encode_observation` writes them
    out[winners, _OWN + 3] = (bids - tricks) / 20.0
    done = rows[completes]
    out[done, _TRICK:_TRICK + NUM_CARDS] = 0.0
    out[done, _POSITION] = 0.0
    out[done, _POSITION.start] = 1.0
    out[done, _LEAD] = 0.0
    out[done, _LEAD.start + _NO_SUIT] = 1.0
    out[done, _PLAYED_NOW] = 0.0
    masks = np.zeros((len(cards), ActionSpace.SIZE), np.bool_)
    masks[:, CARD_COLUMNS] = out[:, _HAND:_HAND + NUM_CARDS] > 0.5
    return out, masks


def _wins(trick: npt.NDArray[np.bool_], cards: npt.NDArray[np.integer[Any]],
          lead: npt.NDArray[np.integer[Any]], trump: npt.NDArray[np.integer[Any]],
          wizard_in: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Whether the last card ``cards[i]`` wins trick ``trick[i]`` (60 flags: the cards before
    it) in lead suit ``lead[i]`` and trump ``trump[i]`` (4: none): the first wizard wins, a
    jester played last never does, else the highest trump, else the highest card of the
    lead suit (`wizard.engine.rules.trick_winner`)."""
    before = np.where(trick, _keys(_SUIT[None, :], _RANK[None, :], lead[:, None],
                                   trump[:, None]), -1000).max(axis=1)
    mine = _keys(_SUIT[cards], _RANK[cards], lead, trump)
    return np.asarray(~wizard_in & (_WIZARDS[cards] | (~_JESTERS[cards] & (mine > before))))


def _keys(suit: npt.NDArray[np.integer[Any]], rank: npt.NDArray[np.integer[Any]],
          lead: npt.NDArray[np.integer[Any]], trump: npt.NDArray[np.integer[Any]]
          ) -> npt.NDArray[np.int64]:
    """A number card's strength in a trick: trumps above the lead suit above the rest;
    -1000 for a wizard or a jester (a wizard is handled apart)."""
    keys = np.where(suit == trump, 100 + rank, np.where(suit == lead, rank, rank - 200))
    return np.where(suit < 0, -1000, keys).astype(np.int64)
