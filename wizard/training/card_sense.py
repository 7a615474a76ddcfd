"""Card sense: features a policy graph derives from the 315 encoded features and the mask.

A plain MLP over the encoding's card bits has to learn for itself which card
wins what: comparing a card with the unseen ones of its suit, with the trick
on the table, under the trump and the lead. Imitating OI's card play it stalled
at about two in three of OI's choices ([measurements](docs/measurements/ai.md)).
These features hand it those comparisons, computed inside the network by fixed
matrices (no learned weights, no new input: the ONNX contract and the
encoding stay as they are), 243 per row:

- ``higher``  (60) — per card, the unseen cards of its suit that rank above it / 13
  (unseen: not in my hand, not played this round, not the turned card);
- ``beaten``  (60) — per card, 1 when a card already in the trick beats it were it
  played now (the first wizard wins, a jester never takes a trick from a card,
  trump beats the rest, the lead suit beats the other suits), else 0;
- ``trumps``  (60) — per card, 1 when it is of the trump suit;
- ``legal``   (60) — the mask's card columns: the cards I may play now;
- ``unseen``   (3) — unseen trumps / 13, unseen wizards / 4, unseen jesters / 4.

`sense` is the numpy reference; `wizard.training.network.PolicyNet` and
`wizard.training.onnx_graphs.mlp_policy` compute the same with these matrices.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from wizard.ai.encoding import BLOCKS, FEATURE_SIZE
from wizard.engine import BID_BASE, MAX_BID
from wizard.engine.cards import CARD_RANK, CARD_SUIT, FIRST_JESTER, FIRST_WIZARD, NUM_CARDS

Array = npt.NDArray[np.float32]

SENSE_SIZE = 4 * NUM_CARDS + 3
SENSED_SIZE = FEATURE_SIZE + SENSE_SIZE  # the width of the first layer of a sensing net
CARD_ACTIONS = slice(BID_BASE + MAX_BID + 1, BID_BASE + MAX_BID + 1 + NUM_CARDS)  # mask columns
STATES = 5  # trump and lead states: red, yellow, green, blue, none


def _kind(card: int) -> str:
    return "jester" if card >= FIRST_JESTER else "wizard" if card >= FIRST_WIZARD else "number"


def _beats(earlier: int, later: int, trump: int, lead: int) -> bool:
    """Whether ``earlier``, already in the trick, beats ``later`` played now (suits 0-3,
    4 = none). For two number cards of suits outside the lead and the trump neither wins:
    the card that set the lead beats both, so the answer there does not matter."""
    if _kind(earlier) == "wizard" or _kind(later) == "jester":
        return True
    if _kind(later) == "wizard" or _kind(earlier) == "jester":
        return False
    e_suit, l_suit = CARD_SUIT[earlier], CARD_SUIT[later]
    later_wins = ((l_suit == e_suit and CARD_RANK[later] > CARD_RANK[earlier])
                  or (l_suit == trump and e_suit != trump)
                  or (l_suit == lead and e_suit not in (lead, trump)))
    return not later_wins


def _tables() -> tuple[Array, Array, Array, Array]:
    higher = np.zeros((NUM_CARDS, NUM_CARDS), np.float32)
    suits = np.zeros((NUM_CARDS, 4), np.float32)
    for card in range(FIRST_WIZARD):
        suits[card, CARD_SUIT[card]] = 1.0
        for other in range(FIRST_WIZARD):
            if CARD_SUIT[other] == CARD_SUIT[card] and CARD_RANK[other] > CARD_RANK[card]:
                higher[other, card] = 1.0 / 13.0
    beats = np.zeros((NUM_CARDS, STATES * STATES * NUM_CARDS), np.float32)
    for trump in range(STATES):
        for lead in range(STATES):
            block = (trump * STATES + lead) * NUM_CARDS
            for earlier in range(NUM_CARDS):
                for later in range(NUM_CARDS):
                    if earlier != later and _beats(earlier, later, trump, lead):
                        beats[earlier, block + later] = 1.0
    specials = np.zeros((NUM_CARDS, 2), np.float32)
    specials[FIRST_WIZARD:FIRST_JESTER, 0] = 0.25
    specials[FIRST_JESTER:, 1] = 0.25
    return higher, suits, beats, specials


#: HIGHER[u, c] = 1/13 when unseen card u ranks above c in its suit; SUITS[c, s] = 1 for
#: the number cards of suit s; BEATS[t, (trump·5 + lead)·60 + c] = 1 when t in the trick
#: beats c; SPECIALS[c] = (1/4 for a wizard, 1/4 for a jester)
HIGHER, SUITS, BEATS, SPECIALS = _tables()


def sense(features: Array, mask: npt.NDArray[np.bool_]) -> Array:
    """The 243 card-sense features of each row (see the module), ``[N, 243]``."""
    hand = features[:, BLOCKS["hand"]]
    played = features[:, BLOCKS["played"]]
    trick = features[:, BLOCKS["trick"]]
    trump = features[:, BLOCKS["trump_suit"]]
    lead = features[:, BLOCKS["lead_suit"]]
    unseen = np.maximum(1.0 - hand - played - features[:, BLOCKS["trump_card"]], 0.0)
    higher = unseen @ HIGHER
    states = (trump[:, :, None] * lead[:, None, :]).reshape(-1, STATES * STATES, 1)
    beaten = ((trick @ BEATS).reshape(-1, STATES * STATES, NUM_CARDS) * states).sum(1)
    trumps = trump[:, :4] @ SUITS.T
    legal = mask[:, CARD_ACTIONS].astype(np.float32)
    unseen_trumps = ((unseen @ SUITS) * trump[:, :4]).sum(1, keepdims=True) / 13.0
    return np.concatenate([higher, np.minimum(beaten, 1.0), trumps, legal,
                           unseen_trumps, unseen @ SPECIALS], axis=1).astype(np.float32)


__all__ = ["BEATS", "CARD_ACTIONS", "HIGHER", "SENSED_SIZE", "SENSE_SIZE", "SPECIALS", "STATES",
           "SUITS", "sense"]
