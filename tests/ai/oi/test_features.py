"""OI features and the exact cases: what is certain is decided without a network, and right."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.ai.oi.features import (
    OI_BLOCKS,
    OI_FEATURE_SIZE,
    Situation,
    card_features,
    immediate_exact,
    overall_exact,
    situation_of,
)
from wizard.engine import GameOptions, Phase, PlayCard, WizardGame
from wizard.engine.cards import ALL_CARDS_MASK
from wizard.engine.rules import LEAD_FREE, LEAD_NONE, lead_of

RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3
WIZARD, JESTER = 52, 56


def red(rank: int) -> int:
    return rank - 1


def blue(rank: int) -> int:
    return 39 + rank - 1


def sit(trick: tuple[int, ...], hand: tuple[int, ...], *, trump: int = BLUE, players: int = 4,
        unseen: int | None = None) -> Situation:
    """Seat 0 to play into ``trick`` (its players sit before seat 0)."""
    hand_mask = sum(1 << c for c in hand)
    if unseen is None:
        unseen = ALL_CARDS_MASK & ~hand_mask & ~sum(1 << c for c in trick)
    position = len(trick)
    played = tuple((players - position <= s) for s in range(players))
    return Situation(
        num_players=players, me=0, hand=hand, hand_mask=hand_mask, trump=trump, trick=trick,
        unseen=unseen, bidding=False, position=position, bids=(1,) * players,
        wanted=(1,) * players, played_now=played, round_number=len(hand),
        cards_in_other_hands=len(hand) * (players - 1) - position,
    )


def test_first_wizard_wins_and_every_card_after_a_wizard_loses() -> None:
    assert immediate_exact(sit((red(5),), (WIZARD,)), WIZARD) == 1.0
    assert immediate_exact(sit((), (WIZARD,)), WIZARD) == 1.0
    behind_wizard = sit((red(5), WIZARD + 1), (WIZARD, blue(13)))
    assert immediate_exact(behind_wizard, WIZARD) == 0.0
    assert immediate_exact(behind_wizard, blue(13)) == 0.0


def test_jesters_lose_unless_only_jesters_can_follow() -> None:
    assert immediate_exact(sit((red(2),), (JESTER,)), JESTER) == 0.0
    assert immediate_exact(sit((JESTER + 1,), (JESTER,)), JESTER) == 0.0  # first jester wins
    # leading: three players follow but only three other jesters exist -> unsure
    assert immediate_exact(sit((), (JESTER,)), JESTER) is None
    # leading with only two jesters unseen for three players to come -> certain loss
    two_jesters = ALL_CARDS_MASK & ~(1 << JESTER) & ~(1 << (JESTER + 1))
    assert immediate_exact(sit((), (JESTER,), unseen=two_jesters), JESTER) == 0.0
    # everything unseen is a jester: the others can only play jesters
    only_jesters = (1 << 57) | (1 << 58) | (1 << 59)
    assert immediate_exact(sit((), (JESTER,), unseen=only_jesters), JESTER) == 1.0


def test_a_card_that_cannot_beat_the_trick_loses() -> None:
    s = sit((red(10),), (red(9), GREEN, blue(2)))
    assert immediate_exact(s, red(9)) == 0.0  # lower in the lead suit
    assert immediate_exact(s, 26) == 0.0  # green 1: neither lead suit nor trump
    trumped = sit((red(10), blue(3)), (blue(2), red(13)))
    assert immediate_exact(trumped, red(13)) == 0.0
    assert immediate_exact(trumped, blue(2)) == 0.0


def test_a_winning_card_is_certain_when_last_or_unbeatable() -> None:
    last = sit((red(10), red(2), red(3)), (red(11),))
    assert immediate_exact(last, red(11)) == 1.0
    # the blue 13 leads, but an unseen wizard could still come
    assert immediate_exact(sit((), (blue(13),)), blue(13)) is None
    no_wizards = ALL_CARDS_MASK & ~(0b1111 << 52) & ~(1 << blue(13))
    assert immediate_exact(sit((), (blue(13),), unseen=no_wizards), blue(13)) == 1.0
    # a red 13 is beaten by any unseen trump
    assert immediate_exact(sit((), (red(13),), unseen=no_wizards), red(13)) is None
    assert immediate_exact(sit((), (red(13),), unseen=no_wizards, trump=-1), red(13)) == 1.0


def test_overall_exact_only_where_certain() -> None:
    two_jesters = ALL_CARDS_MASK & ~(1 << JESTER) & ~(1 << (JESTER + 1))
    assert overall_exact(sit((), (JESTER, red(3)), unseen=two_jesters), JESTER) == 0.0
    assert overall_exact(sit((), (JESTER, red(3)), players=3), JESTER) is None
    assert overall_exact(sit((), (red(3), blue(4))), red(3)) is None


def _random_positions(seed: int, count: int) -> list[tuple[WizardGame, int]]:
    """(game, player) pairs with the player to play a card, from random games."""
    rng = random.Random(seed)
    out = []
    n = rng.choice((3, 4, 5, 6))
    game = WizardGame(n, GameOptions(wizard_trump_dealer_chooses=rng.random() < 0.5),
                      seed=rng.getrandbits(32))
    while not game.is_finished and len(out) < count:
        player = game.current_player
        assert player is not None
        if game.phase is Phase.PLAYING and rng.random() < 0.3:
            out.append((game.clone(), player))
        game.apply(player, rng.choice(game.legal_actions()))
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_exact_immediate_values_hold_in_every_random_continuation(seed: int) -> None:
    """Whatever the others play, a card declared certain wins (1) or loses (0) the trick."""
    rng = random.Random(seed)
    for game, player in _random_positions(seed, 6):
        obs = game.observation(player)
        situation = situation_of(obs)
        for action in obs.legal_actions:
            assert isinstance(action, PlayCard)
            exact = immediate_exact(situation, action.card.id)
            if exact is None:
                continue
            for _ in range(3):
                trial = game.clone()
                events = trial.apply(player, action)
                while not events:
                    mover = trial.current_player
                    assert mover is not None
                    events = trial.apply(mover, rng.choice(trial.legal_actions()))
                won = trial.core.last_trick_winner == player
                assert won == (exact == 1.0), (obs.current_trick, action, exact)


def test_features_have_the_documented_layout() -> None:
    game = WizardGame(5, seed=4)
    player = game.current_player
    assert player is not None
    obs = game.observation(player)
    situation = situation_of(obs)
    rows = card_features(situation, situation.hand)
    assert rows.shape == (len(obs.hand), OI_FEATURE_SIZE)
    assert rows.dtype == np.float32
    assert OI_BLOCKS["players_after"].stop == OI_FEATURE_SIZE - 3
    # the context is shared by every card; each card has exactly one kind
    context = slice(0, OI_BLOCKS["kind"].start)
    assert (rows[:, context] == rows[0, context]).all()
    assert (rows[:, OI_BLOCKS["kind"]].sum(axis=1) == 1).all()
    assert rows[0, OI_BLOCKS["num_players"]].tolist() == [0, 0, 1, 0]
    assert rows[0, OI_BLOCKS["bidding"]].tolist() == [1.0]


def test_the_current_trick_reaches_the_networks_from_feature_version_2() -> None:
    # five players, the third to play: two cards in the trick, two players after me
    game = WizardGame(5, seed=4)
    rng = random.Random(4)
    while True:
        player = game.current_player
        assert player is not None
        obs = game.observation(player)
        if obs.phase is Phase.PLAYING and len(obs.current_trick) == 2 and obs.round_number > 2:
            break
        game.apply(player, rng.choice(game.legal_actions()))
    situation = situation_of(obs)
    lead = lead_of(situation.trick)
    assert lead != LEAD_NONE, "two cards in the trick: something leads"
    rows = card_features(situation, situation.hand)
    assert rows[:, OI_BLOCKS["lead"]].sum(axis=1).tolist() == [1.0] * len(situation.hand)
    assert rows[:, OI_BLOCKS["players_after"]].argmax(axis=1).tolist() == [2] * len(obs.hand)
    if lead != LEAD_FREE:  # a suit to follow: its unseen ranks
        unseen = [(situation.unseen >> (13 * lead + r)) & 1 for r in range(13)]
        assert rows[0, OI_BLOCKS["lead_unseen"]].tolist() == unseen
    # version 1 (the shipped networks until bot version 7) never showed them
    old = card_features(situation, situation.hand, 1)
    for name in ("lead", "lead_unseen", "players_after"):
        assert not old[:, OI_BLOCKS[name]].any()
    trick_blocks = slice(OI_BLOCKS["lead"].start, OI_FEATURE_SIZE)
    same = np.ones(OI_FEATURE_SIZE, bool)
    same[trick_blocks] = False
    np.testing.assert_array_equal(old[:, same], rows[:, same])
    np.testing.assert_array_equal(old[:, OI_BLOCKS["card_vs_trick"]][:, :2],
                                  rows[:, OI_BLOCKS["card_vs_trick"]][:, :2])
    with pytest.raises(ValueError, match="feature version 3"):
        card_features(situation, situation.hand, 3)


def test_adjusted_rank_counts_only_unseen_higher_cards() -> None:
    # red 12 with red 13 in my own hand: nothing unseen beats it in its suit
    s = sit((), (red(12), red(13)))
    rows = card_features(s, [red(12), red(13)])
    adjusted = OI_BLOCKS["adjusted_rank"]
    assert rows[0, adjusted].argmax() == 12
    assert rows[1, adjusted].argmax() == 12
    assert card_features(sit((), (red(3),)), [red(3)])[0, adjusted].argmax() == 2
