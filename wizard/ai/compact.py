"""A compact, cheap-to-pickle form of an `Observation`, for shipping one to a worker.

Pickling an `Observation` (dataclasses, enums, cards) costs many times what
encoding it does, so the pool used to encode on the event loop. `compact` packs
an observation into a tuple of ints, bools and small tuples instead (cards as
ids, hands as 60-bit masks, legal actions as an 85-bit mask) that pickles in
microseconds; `expand` rebuilds the very same observation in the worker, which
then encodes it. The event loop keeps only the packing.

>>> from wizard.engine import WizardGame
>>> game = WizardGame(4, seed=3)
>>> observation = game.observation(game.current_player)
>>> expand(compact(observation)) == observation
True
"""

from __future__ import annotations

from typing import Any

from wizard.engine import GameOptions, Observation, Phase
from wizard.engine.actions import ACTIONS_BY_INDEX, action_index
from wizard.engine.cards import ALL_CARDS, SUITS, Card, Suit
from wizard.engine.state import PlayedCard, RoundResult, TrickResult

Compact = tuple[Any, ...]

_PHASES: tuple[Phase, ...] = tuple(Phase)
_PHASE_INDEX = {phase: i for i, phase in enumerate(_PHASES)}
_SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}
_ACTION_CHUNKS = 11  # 85 actions in 8-bit chunks


def _card_id(card: Card | None) -> int:
    return -1 if card is None else card.id


def _suit_index(suit: Suit | None) -> int:
    return -1 if suit is None else _SUIT_INDEX[suit]


def _card(card_id: int) -> Card | None:
    return None if card_id < 0 else ALL_CARDS[card_id]


def _suit(index: int) -> Suit | None:
    return None if index < 0 else SUITS[index]


def _trick(trick: TrickResult | None) -> Compact | None:
    if trick is None:
        return None
    return (trick.round_number, trick.trick_number,
            tuple((p.player, p.card.id) for p in trick.cards), trick.winner,
            _card_id(trick.trump_card), _suit_index(trick.trump_suit))


def _played(cards: tuple[tuple[int, int], ...]) -> tuple[PlayedCard, ...]:
    return tuple(PlayedCard(seat, ALL_CARDS[card]) for seat, card in cards)


def compact(obs: Observation) -> Compact:
    """``obs`` as a tuple of plain values (`expand` is its inverse)."""
    mask = 0
    for action in obs.legal_actions:
        mask |= 1 << action_index(action)
    options = obs.options
    return (
        obs.player, obs.num_players,
        (options.hidden_bids, options.forbid_even_bids, options.wizard_trump_dealer_chooses),
        _PHASE_INDEX[obs.phase], obs.round_number, obs.total_rounds, obs.dealer,
        obs.current_player, tuple(c.id for c in obs.hand), obs.hand_sizes,
        _card_id(obs.trump_card), _suit_index(obs.trump_suit), obs.bids, obs.has_bid,
        obs.tricks_won, obs.scores, obs.trick_number, obs.trick_leader,
        tuple((p.player, p.card.id) for p in obs.current_trick), _suit_index(obs.lead_suit),
        tuple(c.id for c in obs.played_cards), _trick(obs.last_trick),
        tuple((r.round_number, r.bids, r.tricks, r.score_changes, r.scores)
              for r in obs.round_history),
        mask, obs.winners,
    )


def expand(row: Compact) -> Observation:
    """The `Observation` that `compact` packed (equal to the original)."""
    (player, num_players, options, phase, round_number, total_rounds, dealer, current,
     hand, hand_sizes, trump_card, trump_suit, bids, has_bid, tricks_won, scores,
     trick_number, trick_leader, current_trick, lead_suit, played_cards, last_trick,
     round_history, mask, winners) = row
    legal = []
    index = 0
    while mask:
        if mask & 1:
            legal.append(ACTIONS_BY_INDEX[index])
        mask >>= 1
        index += 1
    last = None
    if last_trick is not None:
        t_round, t_number, t_cards, t_winner, t_card, t_suit = last_trick
        last = TrickResult(t_round, t_number, _played(t_cards), t_winner, _card(t_card),
                           _suit(t_suit))
    return Observation(
        player=player, num_players=num_players, options=GameOptions(*options),
        phase=_PHASES[phase], round_number=round_number, total_rounds=total_rounds,
        dealer=dealer, current_player=current, hand=tuple(ALL_CARDS[c] for c in hand),
        hand_sizes=hand_sizes, trump_card=_card(trump_card), trump_suit=_suit(trump_suit),
        bids=bids, has_bid=has_bid, tricks_won=tricks_won, scores=scores,
        trick_number=trick_number, trick_leader=trick_leader,
        current_trick=_played(current_trick), lead_suit=_suit(lead_suit),
        played_cards=tuple(ALL_CARDS[c] for c in played_cards), last_trick=last,
        round_history=tuple(RoundResult(*r) for r in round_history),
        legal_actions=tuple(legal), winners=winners,
    )


__all__ = ["Compact", "compact", "expand"]
