"""`HeuristicAgent`: the seed's rule-based player, the baseline and the production fallback.

Bidding: expected tricks = wizard 0.95 + trump (0.35 + 0.05·rank) + high side
cards (king 0.7, queen 0.45, scaled by 2 / opponents), bid the closest legal
value. Playing, with ``needed = bid − tricks won``:

1. needs tricks and plays last: win with the cheapest card that wins;
2. needs tricks otherwise: play the strongest card that wins the trick so far;
3. needs tricks but nothing wins: play the weakest card;
4. needs no more tricks: throw the strongest card that still loses, else the weakest.

With ``wizard_trump_dealer_chooses`` it names the suit it holds most of (ties:
the highest total rank, then suit order). Deterministic: no randomness at all.
"""

from __future__ import annotations

from wizard.engine import (
    Action,
    Bid,
    ChooseTrump,
    Observation,
    Phase,
    PlayCard,
    trick_winner,
)
from wizard.engine.actions import PLAY_ACTIONS
from wizard.engine.cards import CARD_RANK, CARD_SUIT, FIRST_JESTER, FIRST_WIZARD

from .base import Agent, require_turn

WIZARD_VALUE = 0.95
TRUMP_BASE_VALUE = 0.35
TRUMP_VALUE_PER_RANK = 0.05
HIGH_SIDE_VALUES = {13: 0.7, 12: 0.45}


def expected_tricks(hand: list[int], trump_suit: int, num_players: int) -> float:
    """The heuristic's estimate of the tricks a hand of card ids takes.

    >>> expected_tricks([52, 53], trump_suit=-1, num_players=4)
    1.9
    """
    total = 0.0
    opponents = num_players - 1
    for card in hand:
        if card >= FIRST_JESTER:
            continue
        if card >= FIRST_WIZARD:
            total += WIZARD_VALUE
        elif CARD_SUIT[card] == trump_suit:
            total += TRUMP_BASE_VALUE + TRUMP_VALUE_PER_RANK * CARD_RANK[card]
        else:
            total += HIGH_SIDE_VALUES.get(CARD_RANK[card], 0.0) * 2 / opponents
    return round(total, 6)


def card_strength(card: int, trump_suit: int, lead_suit: int) -> int:
    """Order used for 'strongest' and 'weakest': wizard > trump > lead suit > rest > jester."""
    if card >= FIRST_JESTER:
        return 0
    if card >= FIRST_WIZARD:
        return 100
    suit = CARD_SUIT[card]
    if suit == trump_suit:
        return 40 + CARD_RANK[card]
    if suit == lead_suit:
        return 20 + CARD_RANK[card]
    return CARD_RANK[card]


class HeuristicAgent(Agent):
    """The seed's heuristic (see the module docstring). Used when a model is missing or slow."""

    name = "heuristic"

    def act(self, observation: Observation) -> Action:
        require_turn(observation)
        if observation.phase is Phase.CHOOSING_TRUMP:
            return self._choose_trump(observation)
        if observation.phase is Phase.BIDDING:
            return self._bid(observation)
        return self._play(observation)

    def _choose_trump(self, obs: Observation) -> Action:
        counts = [0] * 4
        ranks = [0] * 4
        for card in obs.hand:
            if card.suit is not None:
                counts[card.suit.index] += 1
                ranks[card.suit.index] += card.rank
        best = max(range(4), key=lambda s: (counts[s], ranks[s], -s))
        for action in obs.legal_actions:
            if isinstance(action, ChooseTrump) and action.suit.index == best:
                return action
        return obs.legal_actions[0]

    def _bid(self, obs: Observation) -> Action:
        trump = obs.trump_suit.index if obs.trump_suit else -1
        expected = expected_tricks([c.id for c in obs.hand], trump, obs.num_players)
        bids = [a for a in obs.legal_actions if isinstance(a, Bid)]
        return min(bids, key=lambda a: (abs(a.value - expected), a.value))

    def _play(self, obs: Observation) -> Action:
        assert obs.player is not None
        trump = obs.trump_suit.index if obs.trump_suit else -1
        lead = obs.lead_suit.index if obs.lead_suit else -1
        trick = [p.card.id for p in obs.current_trick]
        position = len(trick)
        bid = obs.bids[obs.player]
        needed = (bid if bid is not None else 0) - obs.tricks_won[obs.player]
        cards = [a.card.id for a in obs.legal_actions if isinstance(a, PlayCard)]

        def strength(card: int) -> int:
            return card_strength(card, trump, lead)

        winning = [c for c in cards if trick_winner([*trick, c], trump) == position]
        if needed > 0:
            if winning:
                last = position == obs.num_players - 1
                card = min(winning, key=strength) if last else max(winning, key=strength)
            else:
                card = min(cards, key=strength)
        else:
            losing = [c for c in cards if c not in winning]
            card = max(losing, key=strength) if losing else min(cards, key=strength)
        return PLAY_ACTIONS[card]
