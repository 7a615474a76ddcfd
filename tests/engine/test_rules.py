"""The stateless rule functions, one rule per test, on hand-built tricks and hands.

Card ids: red r = r - 1, yellow r = 12 + r, green r = 25 + r, blue r = 38 + r,
wizards 52–55, jesters 56–59. Suit indices: red 0, yellow 1, green 2, blue 3.
"""

from __future__ import annotations

import pytest

from wizard.engine import (
    lead_of,
    legal_cards_mask,
    mask_of,
    round_score,
    total_rounds,
    trick_winner,
    trump_suit_of,
)
from wizard.engine.cards import Suit, card_id, ids_of
from wizard.engine.rules import LEAD_FREE, LEAD_NONE, next_lead

RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3
NO_TRUMP = -1
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


# --- rounds and trump ---------------------------------------------------------------


@pytest.mark.parametrize(("players", "rounds"), [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_rounds_are_60_cards_divided_by_players(players: int, rounds: int) -> None:
    assert total_rounds(players) == rounds == 60 // players


@pytest.mark.parametrize("bad", [2, 7, 0, -4, True, 4.0, "4"])
def test_total_rounds_rejects_unsupported_player_counts(bad: object) -> None:
    with pytest.raises(ValueError, match="num_players"):
        total_rounds(bad)


def test_turned_number_card_makes_its_suit_trump() -> None:
    assert trump_suit_of(red(1)) == RED
    assert trump_suit_of(yellow(13)) == YELLOW
    assert trump_suit_of(green(7)) == GREEN
    assert trump_suit_of(blue(2)) == BLUE


@pytest.mark.parametrize("card", [J1, J2, J3, J4])
def test_turned_jester_means_no_trump(card: int) -> None:
    assert trump_suit_of(card) == NO_TRUMP


@pytest.mark.parametrize("card", [W1, W2, W3, W4])
def test_turned_wizard_means_no_trump_by_default(card: int) -> None:
    assert trump_suit_of(card) == NO_TRUMP


def test_no_turned_card_in_the_last_round_means_no_trump() -> None:
    assert trump_suit_of(-1) == NO_TRUMP


# --- the lead -----------------------------------------------------------------------


def test_empty_trick_has_no_lead() -> None:
    assert lead_of([]) == LEAD_NONE


def test_first_number_card_sets_the_lead_suit() -> None:
    assert lead_of([green(4)]) == GREEN
    assert lead_of([green(4), red(13), W1]) == GREEN


def test_wizard_lead_frees_everyone() -> None:
    assert lead_of([W2]) == LEAD_FREE
    assert lead_of([W2, red(3)]) == LEAD_FREE


def test_jester_lead_then_the_first_suit_card_sets_the_lead() -> None:
    assert lead_of([J1]) == LEAD_NONE
    assert lead_of([J1, J2]) == LEAD_NONE
    assert lead_of([J1, blue(9)]) == BLUE
    assert lead_of([J1, J2, yellow(1), red(13)]) == YELLOW


def test_jester_lead_then_a_wizard_frees_everyone() -> None:
    assert lead_of([J3, W1]) == LEAD_FREE
    assert lead_of([J3, W1, red(2)]) == LEAD_FREE


def test_next_lead_only_changes_while_no_suit_is_set() -> None:
    assert next_lead(LEAD_NONE, J1) == LEAD_NONE
    assert next_lead(LEAD_NONE, red(5)) == RED
    assert next_lead(LEAD_NONE, W1) == LEAD_FREE
    assert next_lead(RED, blue(5)) == RED
    assert next_lead(RED, W1) == RED
    assert next_lead(LEAD_FREE, red(5)) == LEAD_FREE


# --- following ----------------------------------------------------------------------


def legal(hand: list[int], trick: list[int]) -> list[int]:
    return ids_of(legal_cards_mask(mask_of(hand), lead_of(trick)))


def test_must_follow_suit_if_able() -> None:
    hand = [red(2), red(9), blue(13), green(1)]
    assert legal(hand, [red(5)]) == [red(2), red(9)]
    assert legal(hand, [blue(1)]) == [blue(13)]


def test_a_player_without_the_lead_suit_may_play_anything() -> None:
    hand = [red(2), blue(13), green(1)]
    assert legal(hand, [yellow(5)]) == sorted(hand)


@pytest.mark.parametrize("special", [W1, W4, J1, J4])
def test_wizards_and_jesters_are_always_playable(special: int) -> None:
    hand = [red(2), blue(13), special]
    assert legal(hand, [red(5)]) == sorted([red(2), special])
    assert legal(hand, [blue(5)]) == sorted([blue(13), special])


def test_wizard_lead_lets_everyone_play_anything() -> None:
    hand = [red(2), blue(13), green(1)]
    assert legal(hand, [W1]) == sorted(hand)
    assert legal(hand, [W1, red(9)]) == sorted(hand)


def test_jester_lead_sets_nothing_to_follow_until_a_suit_card_comes() -> None:
    hand = [red(2), blue(13), green(1)]
    assert legal(hand, [J1]) == sorted(hand)
    assert legal(hand, [J1, J2]) == sorted(hand)
    assert legal(hand, [J1, blue(2)]) == [blue(13)]


def test_leading_allows_any_card() -> None:
    hand = [red(2), blue(13), W1, J1]
    assert legal(hand, []) == sorted(hand)


def test_trump_need_not_be_played_when_following_is_impossible_nor_when_following() -> None:
    # trump is not part of following: a player holding the lead suit may not trump in
    hand = [red(2), blue(13)]
    assert legal(hand, [red(9)]) == [red(2)]


# --- who wins the trick -------------------------------------------------------------


def test_first_wizard_wins_even_over_a_later_wizard() -> None:
    assert trick_winner([red(3), W2, W1, blue(13)], BLUE) == 1
    assert trick_winner([W4, W1, W2], NO_TRUMP) == 0


def test_wizard_beats_the_highest_trump() -> None:
    assert trick_winner([blue(13), blue(12), W3], BLUE) == 2


def test_wizard_after_jesters_wins() -> None:
    assert trick_winner([J1, J2, W1, red(13)], RED) == 2


def test_highest_trump_wins() -> None:
    assert trick_winner([red(13), blue(2), red(12), blue(5)], BLUE) == 3
    assert trick_winner([red(13), blue(2), red(12), green(13)], BLUE) == 1


def test_highest_trump_wins_when_trump_was_led() -> None:
    assert trick_winner([blue(4), blue(9), red(13)], BLUE) == 1


def test_without_trump_the_highest_card_of_the_lead_suit_wins() -> None:
    assert trick_winner([green(4), green(11), green(7)], NO_TRUMP) == 1
    assert trick_winner([green(4), green(11), green(7)], RED) == 1


def test_off_suit_never_wins_however_high() -> None:
    assert trick_winner([green(2), red(13), yellow(13), blue(13)], NO_TRUMP) == 0
    assert trick_winner([green(2), red(13), yellow(13), J1], BLUE) == 0


def test_jester_lead_then_the_suit_card_sets_the_lead_for_winning() -> None:
    # jester, yellow 3 (lead suit), red 13 (off suit), yellow 2
    assert trick_winner([J1, yellow(3), red(13), yellow(2)], NO_TRUMP) == 1
    assert trick_winner([J1, J2, yellow(3), yellow(12)], GREEN) == 3


def test_jesters_never_win_against_a_number_card() -> None:
    assert trick_winner([J1, red(1), J2], NO_TRUMP) == 1
    assert trick_winner([red(1), J1, J2, J3], BLUE) == 0


def test_all_jesters_with_three_players_goes_to_the_first_jester() -> None:
    assert trick_winner([J3, J1, J2], NO_TRUMP) == 0


def test_all_jesters_with_four_players_goes_to_the_first_jester() -> None:
    assert trick_winner([J4, J2, J3, J1], RED) == 0


def test_wizard_lead_then_nothing_else_matters() -> None:
    assert trick_winner([W1, blue(13), W2], BLUE) == 0


# --- scoring ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bid", "tricks", "points"),
    [
        (0, 0, 20),
        (1, 1, 30),
        (2, 2, 40),
        (5, 5, 70),
        (20, 20, 220),
        (0, 1, -10),
        (1, 0, -10),
        (1, 3, -20),
        (4, 0, -40),
        (0, 20, -200),
    ],
)
def test_exact_bid_scores_20_plus_10_per_trick_else_minus_10_per_trick_off(
    bid: int, tricks: int, points: int
) -> None:
    assert round_score(bid, tricks) == points
