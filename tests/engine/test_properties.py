"""Property tests: random full games for 3–6 players under all 8 option combinations,
with the invariants of the rules, the scores and the privacy of the observation
checked after every single action.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wizard.engine import (
    Card,
    ChooseTrump,
    Event,
    GameCore,
    GameFinished,
    GameOptions,
    Observation,
    Phase,
    RoundCompleted,
    RoundStarted,
    Suit,
    TrickCompleted,
    TrumpChosen,
    WizardGame,
    event_from_dict,
    mask_of,
    trump_suit_of,
)
from wizard.engine.cards import ALL_CARDS_MASK
from wizard.engine.core import FINISHED, random_index

OPTION_COMBOS = [
    GameOptions(hidden_bids=h, forbid_even_bids=f, wizard_trump_dealer_chooses=c)
    for h, f, c in itertools.product((False, True), repeat=3)
]

# Each option combination with two player counts, each count with four combinations:
# every combination and every count is played on every run, at 32 games in all.
GAME_CASES = [
    (options, 3 + (i + k * (1 + i // 4)) % 4)
    for i, options in enumerate(OPTION_COMBOS)
    for k in (0, 1)
]

SEEDS = st.integers(min_value=-(2**63), max_value=2**63 - 1)
GAME_SETTINGS = settings(
    max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def option_id(options: GameOptions) -> str:
    return "-".join(k for k, v in options.to_dict().items() if v) or "no-options"


def expected_score(bid: int, tricks: int) -> int:
    """The scoring rule, stated independently of the engine."""
    return 20 + 10 * tricks if bid == tricks else -10 * abs(bid - tricks)


def expected_winner(cards: list[Card], trump: Suit | None) -> int:
    """Position of the winning card, stated independently of the engine's trick_winner."""
    for position, card in enumerate(cards):
        if card.is_wizard:
            return position
    suited = [p for p, c in enumerate(cards) if not c.is_jester]
    if not suited:
        return 0
    lead = cards[suited[0]].suit
    pool = [p for p in suited if cards[p].suit is trump] or [
        p for p in suited if cards[p].suit is lead
    ]
    return max(pool, key=lambda p: cards[p].rank)


_CARD_ID = re.compile(r'"id": (\d+), "kind": |"type": "play", "card": (\d+)')


def card_ids_in(text: str) -> int:
    """Mask of every card id a JSON text mentions, as a card object or a play action."""
    found = 0
    for card, played in _CARD_ID.findall(text):
        found |= 1 << int(card or played)
    return found


class Checker:
    """Follows one game through its events and checks every position."""

    def __init__(self, game: WizardGame) -> None:
        self.game = game
        self.n = game.num_players
        self.options = game.options
        self.scores = [0] * self.n
        self.trick_wins = [0] * self.n
        self.chosen: Suit | None = None
        self.rounds_seen = 0
        self.step = 0

    def check_position(self) -> None:
        game, core, n = self.game, self.game.core, self.n
        trump_bit = 1 << core.trump_card if core.trump_card >= 0 else 0

        # cards are conserved: hands + played + trump card + undealt = 60 distinct cards
        union = 0
        for mask in (*core.hands, core.played_mask, trump_bit, core.undealt_mask):
            assert union & mask == 0
            union |= mask
        assert union == ALL_CARDS_MASK
        assert core.played_mask == mask_of(core.played)
        assert len(core.played) == core.played_mask.bit_count()
        # the trump card is never in a hand
        for seat in range(n):
            assert not core.hands[seat] & trump_bit
        # the deal: every seat holds the round number minus the cards it played
        if not game.is_finished:
            played_now = {(core.leader + k) % n for k in range(len(core.trick))}
            for seat in range(n):
                expected = core.round_number - (core.trick_number - 1) - (seat in played_now)
                assert core.hands[seat].bit_count() == expected

        # trump
        if game.phase is Phase.CHOOSING_TRUMP:
            assert self.options.wizard_trump_dealer_chooses
            assert game.trump_card is not None and game.trump_card.is_wizard
            assert game.current_player == game.dealer
            assert game.trump_suit is None
        elif core.round_number * n == 60:  # every card dealt: nothing to turn
            assert game.trump_card is None and game.trump_suit is None
        elif self.chosen is not None:
            assert game.trump_suit is self.chosen
        elif self.options.wizard_trump_dealer_chooses and not game.is_finished:
            # a turned wizard must have opened the choosing phase
            assert game.trump_card is None or not game.trump_card.is_wizard
            assert core.trump_suit == trump_suit_of(core.trump_card)
        else:
            assert core.trump_suit == trump_suit_of(core.trump_card)

        public = core.played_mask | trump_bit
        if game.last_trick is not None:  # may be the previous round's, with its trump card
            public |= mask_of(p.card.id for p in game.last_trick.cards)
            if game.last_trick.trump_card is not None:
                public |= 1 << game.last_trick.trump_card.id
        all_bids_in = core.bid_count == n or game.phase in (Phase.PLAYING, Phase.FINISHED)
        viewers: list[int | None] = [*range(n), None]
        for seat in viewers:
            observation = game.observation(seat)
            own = core.hands[seat] if seat is not None else 0
            # privacy: only the own hand, nothing of anyone else's but public cards
            if seat is None:
                assert observation.hand == ()
            else:
                assert list(observation.hand) == game.hand(seat)
            data = observation.to_dict()
            text = json.dumps(data)
            assert card_ids_in(text) & ~(own | public) == 0
            # hidden bids are hidden until all are in
            for other in range(n):
                real = core.bids[other] if core.bids[other] >= 0 else None
                hidden = self.options.hidden_bids and not all_bids_in and other != seat
                assert observation.bids[other] == (None if hidden else real)
            assert observation.has_bid == tuple(b >= 0 for b in core.bids)
            # legal actions only for the seat to move
            if seat is not None and seat == game.current_player:
                assert observation.legal_actions
                assert list(observation.legal_actions) == game.legal_actions(seat)
            else:
                assert observation.legal_actions == ()
                if seat is not None:
                    assert game.legal_actions(seat) == []
            if seat == viewers[self.step % len(viewers)]:
                round_trip = Observation.from_dict(json.loads(text))
                assert round_trip == observation
        if game.is_finished:
            assert game.current_player is None and game.legal_actions() == []

    def check_events(self, player: int, action: object, events: list[Event],
                     before: dict[str, Any]) -> None:
        game, n = self.game, self.n
        for event in events:
            assert event_from_dict(json.loads(json.dumps(event.to_dict()))) == event
        if isinstance(action, ChooseTrump):
            assert events == [TrumpChosen(player, action.suit)]
            assert player == game.dealer
            assert game.phase is Phase.BIDDING
            assert game.current_player == (game.dealer + 1) % n
            self.chosen = action.suit
            return
        for event in events:
            if isinstance(event, TrickCompleted):
                trick = event.trick
                assert trick.round_number == before["round_number"]
                assert trick.trick_number == before["trick_number"]
                cards = [p.card for p in trick.cards]
                assert [p.player for p in trick.cards] == [
                    (before["leader"] + k) % n for k in range(n)
                ]
                position = expected_winner(cards, trick.trump_suit)
                assert trick.winner == trick.cards[position].player
                assert trick.trump_card == before["trump_card"]
                turned_suit = trick.trump_card.suit if trick.trump_card else None
                assert trick.trump_suit is (self.chosen or turned_suit)
                self.trick_wins[trick.winner] += 1
            elif isinstance(event, RoundCompleted):
                result = event.result
                self.rounds_seen += 1
                assert result.round_number == self.rounds_seen == before["round_number"]
                # tricks add up to the cards dealt, and match the tricks we saw won
                assert sum(result.tricks) == result.round_number
                assert list(result.tricks) == self.trick_wins
                if self.options.forbid_even_bids:
                    assert sum(result.bids) != result.round_number
                changes = [expected_score(b, t) for b, t in zip(result.bids, result.tricks,
                                                               strict=True)]
                assert list(result.score_changes) == changes
                self.scores = [s + c for s, c in zip(self.scores, changes, strict=True)]
                assert list(result.scores) == self.scores
                assert game.round_history[-1] == result
                self.trick_wins = [0] * n
            elif isinstance(event, RoundStarted):
                self.chosen = None  # kept until then: a short game ends with its last trump
                assert event.round_number == before["round_number"] + 1
                assert event.dealer == (before["dealer"] + 1) % n == game.dealer
                assert event.trump_card == game.trump_card
                assert game.phase in (Phase.BIDDING, Phase.CHOOSING_TRUMP)
                assert game.current_player == (
                    game.dealer if game.phase is Phase.CHOOSING_TRUMP else (game.dealer + 1) % n
                )
            elif isinstance(event, GameFinished):
                assert list(event.scores) == self.scores == game.scores
                best = max(self.scores)
                assert list(event.winners) == [s for s in range(n) if self.scores[s] == best]
        assert game.scores == self.scores


def play_checked_game(players: int, options: GameOptions, seed: int, choice_seed: int
                      ) -> tuple[WizardGame, list[tuple[int, Any]]]:
    game = WizardGame(players, options, seed=seed)
    rng = random.Random(choice_seed)
    checker = Checker(game)
    checker.check_position()
    actions = []
    while not game.is_finished:
        player = game.current_player
        assert player is not None
        action = rng.choice(game.legal_actions())
        core = game.core
        before = {"round_number": core.round_number, "trick_number": core.trick_number,
                  "leader": core.leader, "dealer": core.dealer, "trump_card": game.trump_card}
        events = game.apply(player, action)
        actions.append((player, action))
        checker.step += 1
        checker.check_events(player, action, events, before)
        checker.check_position()
    length = options.rounds or 60 // players
    assert checker.rounds_seen == game.total_rounds == length
    assert [r.round_number for r in game.round_history] == list(range(1, length + 1))
    assert game.scores == [sum(r.score_changes[s] for r in game.round_history)
                           for s in range(players)]
    return game, actions


@pytest.mark.parametrize(
    ("options", "players"), GAME_CASES, ids=[f"{option_id(o)}-{n}p" for o, n in GAME_CASES]
)
@GAME_SETTINGS
@given(seed=SEEDS, choice_seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_keep_every_invariant(
    options: GameOptions, players: int, seed: int, choice_seed: int
) -> None:
    game, actions = play_checked_game(players, options, seed, choice_seed)
    # same seed and same actions: the same game, byte for byte
    replay = WizardGame(players, options, seed=seed)
    for player, action in actions:
        replay.apply(player, action)
    assert json.dumps(replay.to_dict()) == json.dumps(game.to_dict())


@settings(max_examples=30, deadline=None)
@given(players=st.integers(min_value=3, max_value=6), seed=SEEDS,
       prefix=st.integers(min_value=0, max_value=400), options=st.sampled_from(OPTION_COMBOS))
def test_clone_and_json_restore_are_independent_and_continue_identically(
    players: int, seed: int, prefix: int, options: GameOptions
) -> None:
    game = WizardGame(players, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(prefix):
        if game.is_finished:
            break
        game.apply(game.current_player, rng.choice(game.legal_actions()))
    original = json.dumps(game.to_dict())
    clone = game.clone()
    restored = WizardGame.from_dict(json.loads(original))
    assert json.dumps(restored.to_dict()) == original
    moves = random.Random(1)
    while not clone.is_finished:
        action = moves.choice(clone.legal_actions())
        assert restored.legal_actions() == clone.legal_actions()
        assert restored.apply(restored.current_player, action) == clone.apply(
            clone.current_player, action)
    assert json.dumps(game.to_dict()) == original
    assert json.dumps(restored.to_dict()) == json.dumps(clone.to_dict())


@settings(max_examples=40, deadline=None)
@given(players=st.integers(min_value=3, max_value=6), seed=SEEDS,
       prefix=st.integers(min_value=0, max_value=500), rand_seed=st.integers(0, 2**32 - 1),
       options=st.sampled_from(OPTION_COMBOS))
def test_playout_equals_stepping_and_leaves_copies_alone(
    players: int, seed: int, prefix: int, rand_seed: int, options: GameOptions
) -> None:
    core = GameCore(players, seed, hidden_bids=options.hidden_bids,
                    forbid_even_bids=options.forbid_even_bids,
                    dealer_chooses=options.wizard_trump_dealer_chooses)
    rand = random.Random(seed).random
    for _ in range(prefix):
        if core.phase == FINISHED:
            break
        core.apply(random_index(core.legal_mask(), rand))
    before = json.dumps(core.to_dict())
    stepped = core.copy()
    played_out = core.copy()
    played_out.playout(random.Random(rand_seed).random)
    rand = random.Random(rand_seed).random
    while stepped.phase != FINISHED:
        stepped.apply(random_index(stepped.legal_mask(), rand))
    assert json.dumps(played_out.to_dict()) == json.dumps(stepped.to_dict())
    assert json.dumps(core.to_dict()) == before
