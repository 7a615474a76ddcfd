"""`WizardGame`, the checked state machine: every rule as a user meets it, typed errors,
options, turn order, scoring, and the state's JSON / clone / determinism guarantees.

Hand-built positions overwrite the fields of ``game.core`` (the fast path the game is
built on) and then play through the checked ``apply``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence

import pytest

from wizard.engine import (
    ActionNotAllowedError,
    Bid,
    ChooseTrump,
    GameFinished,
    GameOptions,
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
    Phase,
    PlayCard,
    RoundCompleted,
    RoundStarted,
    Suit,
    TrickCompleted,
    TrumpChosen,
    WizardGame,
    card_from_id,
    mask_of,
    trump_suit_of,
)
from wizard.engine import core as fast
from wizard.engine.cards import ALL_CARDS_MASK, card_id
from wizard.engine.deal import deal_orders

W1, W2, W3, W4 = 52, 53, 54, 55
J1, J2, J3, J4 = 56, 57, 58, 59


def red(rank: int) -> int:
    return card_id(Suit.RED, rank)


def yellow(rank: int) -> int:
    return card_id(Suit.YELLOW, rank)


def green(rank: int) -> int:
    return card_id(Suit.GREEN, rank)


def blue(rank: int) -> int:
    return card_id(Suit.BLUE, rank)


def play(card_id: int) -> PlayCard:
    return PlayCard(card_from_id(card_id))


def position(
    hands: Sequence[Sequence[int]],
    *,
    leader: int = 0,
    trump_card: int = -1,
    trump_suit: int | None = None,
    bids: Sequence[int] | None = None,
    options: GameOptions | None = None,
) -> WizardGame:
    """A game in the playing phase at trick 1 of round ``len(hands[0])``; ``leader`` leads."""
    n = len(hands)
    round_number = len(hands[0])
    assert all(len(h) == round_number for h in hands)
    game = WizardGame(n, options, seed=1, first_dealer=(leader - 1) % n)
    core = game.core
    core.round_number = round_number
    core.hands = [mask_of(h) for h in hands]
    core.trump_card = trump_card
    core.trump_suit = trump_suit_of(trump_card) if trump_suit is None else trump_suit
    held = 0
    for hand in core.hands:
        held |= hand
    core.undealt_mask = ALL_CARDS_MASK ^ held ^ (1 << trump_card if trump_card >= 0 else 0)
    core.bids = list(bids) if bids is not None else [0] * n
    core.bid_count, core.bid_sum = n, sum(core.bids)
    core.tricks = [0] * n
    core.phase, core.current, core.leader = fast.PLAYING, leader, leader
    return game


def play_cards(game: WizardGame, cards: Sequence[int]) -> list[object]:
    """Play ``cards`` in turn order through the checked API; the events of the last one."""
    events: list[object] = []
    for card in cards:
        events = list(game.apply(game.current_player, play(card)))
    return events


def finish_with(game: WizardGame, choose: Callable[[list], object]) -> list[object]:
    events: list[object] = []
    while not game.is_finished:
        events += game.apply(game.current_player, choose(game.legal_actions()))
    return events


def seed_turning(num_players: int, wanted: Callable[[int], bool]) -> int:
    """The smallest seed whose round-1 turned card satisfies ``wanted``."""
    for seed in range(10_000):
        if wanted(deal_orders(seed, num_players)[0][num_players]):
            return seed
    raise AssertionError("no such seed")


def turns_wizard(card: int) -> bool:
    return W1 <= card <= W4


def turns_jester(card: int) -> bool:
    return card >= J1


def turns_number(card: int) -> bool:
    return card < W1


def snapshot(game: WizardGame) -> str:
    return json.dumps(game.to_dict(), sort_keys=True)


# --- construction -------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_new_game_deals_round_one_and_asks_the_seat_left_of_the_dealer_to_bid(
    players: int,
) -> None:
    game = WizardGame(players, seed=3, first_dealer=1)
    assert game.phase is Phase.BIDDING
    assert game.round_number == 1
    assert game.total_rounds == 60 // players
    assert game.dealer == 1
    assert game.current_player == 2
    assert [len(game.hand(p)) for p in range(players)] == [1] * players
    assert game.trump_card is not None
    assert game.scores == [0] * players
    assert game.round_history == [] and game.last_trick is None


@pytest.mark.parametrize("bad", [2, 7, 0, True, 4.0, "4"])
def test_constructor_rejects_unsupported_player_counts(bad: object) -> None:
    with pytest.raises(ValueError, match="num_players"):
        WizardGame(bad, seed=1)


@pytest.mark.parametrize("bad", [-1, 4, 10])
def test_constructor_rejects_a_first_dealer_outside_the_table(bad: int) -> None:
    with pytest.raises(ValueError, match="first_dealer"):
        WizardGame(4, seed=1, first_dealer=bad)


@pytest.mark.parametrize("bad", [1.5, "7", True])
def test_constructor_rejects_a_non_integer_seed(bad: object) -> None:
    with pytest.raises(ValueError, match="seed"):
        WizardGame(4, seed=bad)


def test_default_options_are_the_seed_behaviour() -> None:
    assert WizardGame(4, seed=1).options == GameOptions(
        hidden_bids=False, forbid_even_bids=True, wizard_trump_dealer_chooses=False
    )


def test_a_game_from_an_rng_is_reproducible_from_that_rng() -> None:
    a = WizardGame(5, rng=random.Random(9))
    b = WizardGame(5, rng=random.Random(9))
    assert a.to_dict() == b.to_dict()
    assert WizardGame(5, seed=a.seed).to_dict() == a.to_dict()


def test_without_seed_or_rng_games_differ() -> None:
    assert WizardGame(4).seed != WizardGame(4).seed


def test_the_first_dealer_is_drawn_from_the_seed() -> None:
    dealers = {WizardGame(4, seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert all(WizardGame(4, seed=s).dealer == WizardGame(4, seed=s).dealer for s in range(10))


# --- dealing, rounds, trump ---------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_round_r_deals_r_cards_each_and_the_dealer_rotates(players: int) -> None:
    game = WizardGame(players, seed=11, first_dealer=2)
    seen: list[tuple[int, int]] = [(game.round_number, game.dealer)]
    while not game.is_finished:
        assert [len(game.hand(p)) for p in range(players)] == [game.round_number] * players
        round_number = game.round_number
        while game.round_number == round_number and not game.is_finished:
            game.apply(game.current_player, game.legal_actions()[0])
        if not game.is_finished:
            seen.append((game.round_number, game.dealer))
    assert seen == [(r, (2 + r - 1) % players) for r in range(1, 60 // players + 1)]
    assert len(game.round_history) == 60 // players


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_last_round_deals_all_60_cards_and_turns_no_trump(players: int) -> None:
    game = WizardGame(players, GameOptions(wizard_trump_dealer_chooses=True), seed=4)
    rng = random.Random(4)
    while game.round_number < game.total_rounds:
        game.apply(game.current_player, rng.choice(game.legal_actions()))
    assert game.phase is Phase.BIDDING
    assert game.trump_card is None and game.trump_suit is None
    hands = [game.hand(p) for p in range(players)]
    assert [len(h) for h in hands] == [60 // players] * players
    assert sorted(c.id for h in hands for c in h) == list(range(60))
    observation = game.observation(0)
    assert observation.trump_card is None and observation.trump_suit is None
    assert game.start_events() == [RoundStarted(game.round_number, game.dealer, None, None)]


def test_the_card_after_the_deal_is_turned_and_its_suit_is_trump() -> None:
    seed = seed_turning(4, turns_number)
    game = WizardGame(4, seed=seed, first_dealer=0)
    turned = deal_orders(seed, 4)[0][4]
    assert game.trump_card == card_from_id(turned)
    assert game.trump_suit is card_from_id(turned).suit
    assert all(card_from_id(turned) not in game.hand(p) for p in range(4))


@pytest.mark.parametrize("chooses", [False, True])
def test_turned_jester_means_no_trump(chooses: bool) -> None:
    seed = seed_turning(4, turns_jester)
    game = WizardGame(4, GameOptions(wizard_trump_dealer_chooses=chooses), seed=seed,
                      first_dealer=0)
    assert game.trump_card is not None and game.trump_card.is_jester
    assert game.trump_suit is None
    assert game.phase is Phase.BIDDING
    assert game.current_player == 1


def test_turned_wizard_means_no_trump_by_default() -> None:
    seed = seed_turning(4, turns_wizard)
    game = WizardGame(4, seed=seed, first_dealer=3)
    assert game.trump_card is not None and game.trump_card.is_wizard
    assert game.trump_suit is None
    assert game.phase is Phase.BIDDING
    assert game.current_player == 0
    assert game.observation(0).trump_suit is None


def test_turned_wizard_lets_the_dealer_choose_trump_before_bidding() -> None:
    seed = seed_turning(4, turns_wizard)
    game = WizardGame(4, GameOptions(wizard_trump_dealer_chooses=True), seed=seed,
                      first_dealer=2)
    assert game.phase is Phase.CHOOSING_TRUMP
    assert game.current_player == 2
    assert game.trump_suit is None
    assert game.legal_actions() == [ChooseTrump(s) for s in Suit]
    for seat in (0, 1, 3):
        assert game.legal_actions(seat) == []
        assert game.observation(seat).legal_actions == ()
    assert game.observation(1).phase is Phase.CHOOSING_TRUMP
    assert game.observation(2).to_dict()["phase"] == "choosing_trump"

    # only the dealer acts, and only by naming a suit
    before = snapshot(game)
    with pytest.raises(NotYourTurnError):
        game.apply(3, ChooseTrump(Suit.RED))
    with pytest.raises(ActionNotAllowedError, match="bids are not taken in phase choosing_trump"):
        game.apply(2, Bid(0))
    with pytest.raises(ActionNotAllowedError, match="not played in phase choosing_trump"):
        game.apply(2, PlayCard(game.hand(2)[0]))
    assert snapshot(game) == before

    assert game.apply(2, ChooseTrump(Suit.GREEN)) == [TrumpChosen(2, Suit.GREEN)]
    assert game.phase is Phase.BIDDING
    assert game.current_player == 3  # bidding starts left of the dealer
    assert game.trump_suit is Suit.GREEN
    assert game.trump_card is not None and game.trump_card.is_wizard
    for seat in (0, 1, 2, 3, None):
        assert game.observation(seat).trump_suit is Suit.GREEN
    assert game.start_events() == [RoundStarted(1, 2, game.trump_card, Suit.GREEN)]

    # the chosen suit is trump for the tricks of that round
    for _ in range(4):
        game.apply(game.current_player, game.legal_actions()[0])
    events: list[object] = []
    for _ in range(4):
        events = game.apply(game.current_player, game.legal_actions()[0])
    trick = next(e for e in events if isinstance(e, TrickCompleted)).trick
    assert trick.trump_suit is Suit.GREEN
    assert trick.trump_card is not None and trick.trump_card.is_wizard


def test_chosen_trump_decides_the_trick() -> None:
    game = position(
        [[red(13)], [green(2)], [red(3)], [yellow(9)]],
        leader=0, trump_card=W1, trump_suit=Suit.GREEN.index,
        options=GameOptions(wizard_trump_dealer_chooses=True),
    )
    events = play_cards(game, [red(13), green(2), red(3), yellow(9)])
    trick = events[0].trick
    assert trick.winner == 1
    assert trick.trump_suit is Suit.GREEN


def test_choose_trump_is_refused_outside_the_choosing_phase() -> None:
    game = WizardGame(4, GameOptions(wizard_trump_dealer_chooses=True),
                      seed=seed_turning(4, turns_number), first_dealer=0)
    assert game.phase is Phase.BIDDING
    with pytest.raises(ActionNotAllowedError, match="trump is chosen only after"):
        game.apply(1, ChooseTrump(Suit.RED))


def test_a_round_without_a_turned_wizard_has_no_choosing_phase() -> None:
    game = WizardGame(4, GameOptions(wizard_trump_dealer_chooses=True),
                      seed=seed_turning(4, turns_number), first_dealer=0)
    assert game.phase is Phase.BIDDING and game.current_player == 1


# --- following and trick winners in play --------------------------------------------


def test_must_follow_suit_if_able_and_a_refusal_says_so() -> None:
    game = position([[red(5), blue(1)], [red(2), blue(13)], [green(4), green(5)]])
    play_cards(game, [red(5)])
    assert game.legal_actions() == [play(red(2))]
    before = snapshot(game)
    with pytest.raises(ActionNotAllowedError, match=r"play blue 13 refused: .*must follow red"):
        game.apply(1, play(blue(13)))
    assert snapshot(game) == before
    play_cards(game, [red(2)])
    # seat 2 holds no red: anything goes
    assert game.legal_actions() == [play(green(4)), play(green(5))]


def test_wizards_and_jesters_may_always_be_played() -> None:
    game = position([[red(5), blue(1), blue(2)], [red(2), W1, J1], [green(4), red(9), J2]])
    play_cards(game, [red(5)])
    assert game.legal_actions() == [play(red(2)), play(W1), play(J1)]
    play_cards(game, [W1])
    assert game.legal_actions() == [play(red(9)), play(J2)]


def test_wizard_lead_frees_everyone() -> None:
    game = position([[W1, blue(1)], [red(2), blue(13)], [green(4), blue(5)]])
    play_cards(game, [W1])
    assert game.legal_actions() == [play(red(2)), play(blue(13))]
    assert game.observation(1).lead_suit is None
    play_cards(game, [red(2)])
    assert game.legal_actions() == [play(green(4)), play(blue(5))]
    events = play_cards(game, [green(4)])
    assert events == [TrickCompleted(game.last_trick)]
    assert game.last_trick is not None and game.last_trick.winner == 0


def test_jester_lead_then_the_first_suit_card_sets_the_lead() -> None:
    game = position([[J1, blue(1)], [yellow(3), blue(13)], [yellow(12), red(5)], [red(1), red(2)]])
    play_cards(game, [J1])
    assert game.observation(1).lead_suit is None
    assert game.legal_actions() == [play(yellow(3)), play(blue(13))]
    play_cards(game, [yellow(3)])
    assert game.observation(2).lead_suit is Suit.YELLOW
    assert game.legal_actions() == [play(yellow(12))]
    play_cards(game, [yellow(12), red(2)])
    assert game.last_trick is not None and game.last_trick.winner == 2


@pytest.mark.parametrize(("players", "leader"), [(3, 0), (3, 2), (4, 1), (4, 3)])
def test_a_trick_of_only_jesters_goes_to_the_first_jester(players: int, leader: int) -> None:
    jesters = [J1, J2, J3, J4][:players]
    hands = [[0] for _ in range(players)]
    for k, jester in enumerate(jesters):
        hands[(leader + k) % players] = [jester]
    game = position(hands, leader=leader, trump_card=red(1))
    events = play_cards(game, jesters)
    trick = events[0].trick
    assert trick.winner == leader
    assert [p.player for p in trick.cards] == [(leader + k) % players for k in range(players)]
    assert game.round_history[0].tricks[leader] == 1


@pytest.mark.parametrize(
    ("cards", "trump_card", "leader", "winner"),
    [
        # first wizard beats a later wizard and the highest trump
        ([blue(13), W2, W1, blue(12)], blue(1), 0, 1),
        ([W4, W1, blue(13), red(1)], blue(1), 2, 2),
        # highest trump
        ([red(13), blue(2), red(12), blue(5)], blue(1), 1, 0),
        # highest of the lead suit when nobody trumps
        ([green(4), green(11), red(13), green(7)], blue(1), 3, 0),
        # off-suit never wins, whatever its rank
        ([green(2), red(13), yellow(13), J1], blue(1), 0, 0),
        # jester lead: the first suit card sets the lead
        ([J1, yellow(3), red(13), yellow(2)], green(1), 0, 1),
    ],
)
def test_trick_winner_in_play(cards: list[int], trump_card: int, leader: int, winner: int) -> None:
    hands = [[0] for _ in range(4)]
    for k, card in enumerate(cards):
        hands[(leader + k) % 4] = [card]
    game = position(hands, leader=leader, trump_card=trump_card)
    events = play_cards(game, cards)
    assert isinstance(events[0], TrickCompleted)
    assert events[0].trick.winner == winner
    assert events[0].trick.trump_card == card_from_id(trump_card)
    assert events[0].trick.trump_suit is card_from_id(trump_card).suit


def test_the_winner_of_a_trick_leads_the_next() -> None:
    game = position(
        [[red(2), green(1)], [red(9), green(2)], [red(5), green(3)]], leader=0, trump_card=blue(1)
    )
    assert play_cards(game, [red(2), red(9), red(5)]) == [TrickCompleted(game.last_trick)]
    assert game.current_player == 1
    assert game.observation(0).trick_leader == 1
    assert game.observation(0).trick_number == 2
    play_cards(game, [green(2), green(3), green(1)])
    assert game.last_trick is not None and game.last_trick.winner == 2


def test_first_leader_is_the_seat_left_of_the_dealer() -> None:
    for dealer in range(4):
        game = WizardGame(4, seed=21, first_dealer=dealer)
        assert game.current_player == (dealer + 1) % 4
        bidders = []
        while game.phase is Phase.BIDDING:
            bidders.append(game.current_player)
            game.apply(game.current_player, game.legal_actions()[0])
        assert bidders == [(dealer + k) % 4 for k in range(1, 5)]
        assert game.phase is Phase.PLAYING
        assert game.current_player == (dealer + 1) % 4


def test_playing_a_card_not_in_hand_is_refused() -> None:
    game = position([[red(5)], [red(2)], [red(3)]])
    with pytest.raises(ActionNotAllowedError, match=r"play red 2 refused: red 2 is not in seat 0"):
        game.apply(0, play(red(2)))


# --- bidding ------------------------------------------------------------------------


def bid_round(game: WizardGame, bids: Sequence[int]) -> None:
    for value in bids:
        game.apply(game.current_player, Bid(value))


def game_in_round_3(options: GameOptions) -> WizardGame:
    game = WizardGame(4, options, seed=seed_turning(4, turns_number), first_dealer=0)
    while game.round_number < 3:
        game.apply(game.current_player, game.legal_actions()[0])
    assert game.phase is Phase.BIDDING and game.dealer == 2
    return game


def test_bids_range_from_zero_to_the_cards_in_hand() -> None:
    game = game_in_round_3(GameOptions())
    assert game.legal_actions() == [Bid(0), Bid(1), Bid(2), Bid(3)]
    with pytest.raises(ActionNotAllowedError, match="bid 4 refused: bids in round 3 must be 0-3"):
        game.apply(game.current_player, Bid(4))
    with pytest.raises(ActionNotAllowedError, match="bid 21 refused"):
        game.apply(game.current_player, Bid(21))


def test_the_last_bidder_may_not_make_the_bids_add_up() -> None:
    game = game_in_round_3(GameOptions(forbid_even_bids=True))
    bid_round(game, [1, 0, 1])
    assert game.current_player == game.dealer
    assert Bid(1) not in game.legal_actions()
    assert game.legal_actions() == [Bid(0), Bid(2), Bid(3)]
    assert not game.is_legal(game.dealer, Bid(1))
    before = snapshot(game)
    with pytest.raises(ActionNotAllowedError, match=r"bid 1 refused: .*may not add up to 3"):
        game.apply(game.dealer, Bid(1))
    assert snapshot(game) == before
    game.apply(game.dealer, Bid(2))
    assert game.phase is Phase.PLAYING


def test_no_bid_is_forbidden_when_the_others_already_bid_more_than_the_cards() -> None:
    game = game_in_round_3(GameOptions(forbid_even_bids=True))
    bid_round(game, [3, 3, 0])
    assert game.legal_actions() == [Bid(0), Bid(1), Bid(2), Bid(3)]


def test_only_the_last_bidder_is_restricted() -> None:
    game = game_in_round_3(GameOptions(forbid_even_bids=True))
    bid_round(game, [3])
    assert game.legal_actions() == [Bid(0), Bid(1), Bid(2), Bid(3)]


def test_bids_may_add_up_when_the_option_is_off() -> None:
    game = game_in_round_3(GameOptions(forbid_even_bids=False))
    bid_round(game, [1, 0, 1])
    assert game.legal_actions() == [Bid(0), Bid(1), Bid(2), Bid(3)]
    game.apply(game.dealer, Bid(1))
    assert game.phase is Phase.PLAYING
    assert sum(b for b in game.observation(0).bids if b is not None) == 3


def test_hidden_bids_stay_hidden_until_all_are_in() -> None:
    game = game_in_round_3(GameOptions(hidden_bids=True))
    bid_round(game, [2, 0])  # seats 3 and 0
    for seat in range(4):
        observation = game.observation(seat)
        assert observation.has_bid == (True, False, False, True)
        own = {3: 2, 0: 0}.get(seat)
        assert observation.bids == tuple(own if s == seat else None for s in range(4))
    assert game.observation(None).bids == (None,) * 4
    bid_round(game, [1, 3])
    for seat in (0, 1, 2, 3, None):
        assert game.observation(seat).bids == (0, 1, 3, 2)


def test_open_bids_are_visible_at_once() -> None:
    game = game_in_round_3(GameOptions(hidden_bids=False))
    bid_round(game, [2, 0])
    for seat in (0, 1, 2, 3, None):
        assert game.observation(seat).bids == (0, None, None, 2)


def test_with_hidden_bids_the_dealers_legal_bids_reveal_the_others_sum() -> None:
    game = game_in_round_3(GameOptions(hidden_bids=True, forbid_even_bids=True))
    bid_round(game, [1, 1, 0])
    dealer_view = game.observation(game.dealer)
    assert dealer_view.bids == (None, None, None, None)
    missing = {0, 1, 2, 3} - {a.value for a in dealer_view.legal_actions}
    assert missing == {3 - 2}


# --- scoring ------------------------------------------------------------------------


def test_round_scores_follow_the_formula() -> None:
    # three tricks: seat 1 wins two with trump, seat 0 wins one with a wizard
    game = position(
        [[W1, red(2), red(3)], [blue(12), blue(13), red(4)], [green(1), green(2), green(3)]],
        leader=0, trump_card=blue(1), bids=[1, 1, 0],
    )
    play_cards(game, [W1, red(4), green(1)])  # seat 0 wins
    play_cards(game, [red(2), blue(12), green(2)])  # seat 1 trumps
    events = play_cards(game, [blue(13), green(3), red(3)])  # seat 1 leads trump and wins
    kinds = [type(e) for e in events]
    assert kinds == [TrickCompleted, RoundCompleted, RoundStarted]
    result = events[1].result
    assert result.round_number == 3
    assert result.bids == (1, 1, 0)
    assert result.tricks == (1, 2, 0)
    assert result.score_changes == (30, -10, 20)
    assert result.scores == (30, -10, 20)
    assert game.scores == [30, -10, 20]
    assert game.round_history == [result]
    assert events[2] == RoundStarted(4, game.dealer, game.trump_card, game.trump_suit)


def test_scores_are_the_running_sums_of_the_round_changes() -> None:
    game = WizardGame(4, seed=8)
    finish_with(game, lambda actions: actions[-1])
    totals = [0] * 4
    for result in game.round_history:
        totals = [t + c for t, c in zip(totals, result.score_changes, strict=True)]
        assert list(result.scores) == totals
    assert game.scores == totals


@pytest.mark.parametrize(("players", "seed"), [(3, 4), (4, 9), (6, 2)])
def test_a_finished_round_keeps_its_dealer_trump_and_every_card_in_play_order(
        players: int, seed: int) -> None:
    game = WizardGame(players, seed=seed, options=GameOptions(wizard_trump_dealer_chooses=True))
    rng = random.Random(seed)
    started = game.start_events()[0]
    tricks: list[TrickCompleted] = []
    checked = 0
    while not game.is_finished:
        for event in game.apply(game.current_player, rng.choice(game.legal_actions())):
            if isinstance(event, RoundStarted):
                started, tricks = event, []
            elif isinstance(event, TrickCompleted):
                tricks.append(event)
            elif isinstance(event, RoundCompleted):
                result = event.result
                assert isinstance(started, RoundStarted)
                assert started.round_number == result.round_number
                assert result.dealer == started.dealer
                assert result.trump_suit == tricks[0].trick.trump_suit
                assert result.plays == tuple(p.card.id for t in tricks for p in t.trick.cards)
                assert len(set(result.plays)) == players * result.round_number
                checked += 1
    assert checked == len(game.round_history) == 60 // players
    assert game.round_history[-1].trump_suit is None  # the last round deals out the deck


def test_the_game_ends_after_the_last_round_with_the_winners() -> None:
    game = WizardGame(3, seed=2)
    events = finish_with(game, lambda actions: actions[0])
    assert game.is_finished and game.phase is Phase.FINISHED
    assert game.current_player is None
    finished = events[-1]
    assert isinstance(finished, GameFinished)
    assert finished.scores == tuple(game.scores)
    best = max(game.scores)
    assert list(finished.winners) == [s for s in range(3) if game.scores[s] == best]
    assert game.winners() == list(finished.winners)
    assert game.observation(0).winners == finished.winners
    assert isinstance(events[-2], RoundCompleted) and events[-2].result.round_number == 20


def test_everyone_wins_before_anyone_scores() -> None:
    assert WizardGame(4, seed=1).winners() == [0, 1, 2, 3]


# --- typed errors -------------------------------------------------------------------


def test_out_of_turn_is_refused_with_not_your_turn() -> None:
    game = WizardGame(4, seed=5, first_dealer=0)
    before = snapshot(game)
    with pytest.raises(NotYourTurnError) as caught:
        game.apply(3, Bid(0))
    error = caught.value
    assert error.code == "not_your_turn"
    assert str(error) == "bid 0 refused: it is seat 1's turn, not seat 3's"
    assert error.player == 3 and error.action == Bid(0)
    assert isinstance(error, IllegalActionError) and isinstance(error, ValueError)
    assert snapshot(game) == before


def test_actions_after_the_end_are_refused_with_game_over() -> None:
    game = WizardGame(6, seed=5)
    finish_with(game, lambda actions: actions[0])
    before = snapshot(game)
    for seat in range(6):
        with pytest.raises(GameOverError, match="bid 0 refused: the game is over") as caught:
            game.apply(seat, Bid(0))
        assert caught.value.code == "game_over"
        assert isinstance(caught.value, IllegalActionError)
    assert game.legal_actions() == []
    assert snapshot(game) == before


def test_illegal_actions_are_refused_with_illegal_action() -> None:
    game = WizardGame(4, seed=5, first_dealer=0)
    before = snapshot(game)
    card = game.hand(1)[0]
    cases = [
        (PlayCard(card), f"play {card} refused: cards are not played in phase bidding"),
        (Bid(5), "bid 5 refused: bids in round 1 must be 0-1"),
        (Bid(-1), "bid -1 refused: bid must be an integer 0-20"),
        (Bid(True), "bid True refused"),
        ("bid 0", "action 'bid 0' refused: not an action"),
        (None, "action None refused"),
    ]
    for action, message in cases:
        with pytest.raises(ActionNotAllowedError) as caught:
            game.apply(1, action)
        assert caught.value.code == "illegal_action"
        assert str(caught.value).startswith(message)
        assert isinstance(caught.value, IllegalActionError)
        assert not game.is_legal(1, action)
        assert snapshot(game) == before


def test_legal_actions_of_a_seat_not_to_move_are_empty() -> None:
    game = WizardGame(4, seed=5, first_dealer=0)
    assert game.legal_actions(1) == [Bid(0), Bid(1)]
    assert game.legal_actions() == game.legal_actions(1)
    for seat in (0, 2, 3):
        assert game.legal_actions(seat) == []
        assert not game.is_legal(seat, Bid(0))
    assert game.is_legal(1, Bid(0))


# --- observation of a game ----------------------------------------------------------


def test_observation_rejects_a_seat_that_does_not_exist() -> None:
    game = WizardGame(4, seed=1)
    for bad in (-1, 4, True, "0"):
        with pytest.raises(ValueError, match="player"):
            game.observation(bad)


def test_hand_is_sorted_and_private_cards_differ_between_seats() -> None:
    game = WizardGame(4, seed=12, first_dealer=0)
    while game.round_number < 5:
        game.apply(game.current_player, game.legal_actions()[0])
    hands = [game.hand(p) for p in range(4)]
    for hand in hands:
        assert [c.id for c in hand] == sorted(c.id for c in hand)
    assert len({c for h in hands for c in h}) == 20
    for seat in range(4):
        assert list(game.observation(seat).hand) == hands[seat]
    assert game.observation(None).hand == ()


# --- state: JSON, clone, determinism ------------------------------------------------


def random_game(seed: int, players: int = 4, steps: int = 150,
                options: GameOptions | None = None) -> tuple[WizardGame, list[tuple[int, object]]]:
    game = WizardGame(players, options, seed=seed)
    rng = random.Random(seed)
    actions = []
    for _ in range(steps):
        if game.is_finished:
            break
        action = rng.choice(game.legal_actions())
        actions.append((game.current_player, action))
        game.apply(game.current_player, action)
    return game, actions


def test_same_seed_and_actions_give_the_same_game_byte_for_byte() -> None:
    for seed in (0, 1, -5, 2**62):
        first, actions = random_game(seed, steps=10_000)
        second = WizardGame(4, seed=seed)
        for player, action in actions:
            second.apply(player, action)
        assert json.dumps(first.to_dict()) == json.dumps(second.to_dict())
        assert first.is_finished


def test_different_seeds_deal_differently() -> None:
    hands = {tuple(c.id for p in range(4) for c in WizardGame(4, seed=s).hand(p))
             for s in range(20)}
    assert len(hands) > 15
    assert WizardGame(4, seed=7).core.orders != WizardGame(4, seed=-7).core.orders


def test_clone_is_independent_of_the_original() -> None:
    game, _ = random_game(3, steps=37)
    original = snapshot(game)
    clone = game.clone()
    assert snapshot(clone) == original
    rng = random.Random(1)
    for _ in range(200):
        clone.apply(clone.current_player, rng.choice(clone.legal_actions()))
    assert snapshot(game) == original
    assert snapshot(clone) != original


def test_to_dict_from_dict_round_trip_continues_identically() -> None:
    game, _ = random_game(6, players=5, steps=123,
                          options=GameOptions(hidden_bids=True, wizard_trump_dealer_chooses=True))
    data = json.loads(json.dumps(game.to_dict()))
    restored = WizardGame.from_dict(data)
    assert restored.to_dict() == game.to_dict()
    assert restored.observation(2) == game.observation(2)
    rng_a, rng_b = random.Random(2), random.Random(2)
    while not game.is_finished:
        action = rng_a.choice(game.legal_actions())
        assert rng_b.choice(restored.legal_actions()) == action
        assert restored.apply(restored.current_player, action) == game.apply(
            game.current_player, action)
    assert json.dumps(restored.to_dict()) == json.dumps(game.to_dict())


def test_from_dict_rejects_a_state_with_a_missing_field() -> None:
    data = WizardGame(4, seed=1).to_dict()
    del data["core"]["hands"]
    with pytest.raises(ValueError, match="hands"):
        WizardGame.from_dict(data)


def test_to_dict_holds_every_hand_for_the_store() -> None:
    game = WizardGame(4, seed=1)
    assert game.to_dict()["core"]["hands"] == [mask_of(c.id for c in game.hand(p))
                                                 for p in range(4)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_check_then_apply_index_plays_a_game_exactly_as_apply_does(seed: int) -> None:
    checked, applied = WizardGame(4, seed=seed), WizardGame(4, seed=seed)
    rng = random.Random(seed)
    while not applied.is_finished:
        mover = applied.current_player
        assert mover is not None
        legal = applied.legal_actions()
        wrong_seat = (mover + 1) % 4
        with pytest.raises(IllegalActionError) as by_apply:
            applied.apply(wrong_seat, legal[0])
        with pytest.raises(IllegalActionError) as by_check:
            checked.check(wrong_seat, legal[0])
        assert (by_check.value.code, str(by_check.value)) == (by_apply.value.code,
                                                             str(by_apply.value))
        action = rng.choice(legal)
        assert checked.apply_index(checked.check(mover, action)) == applied.apply(mover, action)
    assert checked.to_dict() == applied.to_dict()


def test_card_id_names_number_cards_by_suit_and_rank() -> None:
    assert [card_id(s, 1) for s in Suit] == [0, 13, 26, 39]
    assert card_from_id(card_id(Suit.GREEN, 7)).rank == 7
    for bad_suit, bad_rank in ((4, 1), (-1, 1), (Suit.RED, 0), (Suit.RED, 14), (0, True)):
        with pytest.raises(ValueError):
            card_id(bad_suit, bad_rank)
