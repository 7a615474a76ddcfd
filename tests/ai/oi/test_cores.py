"""OI on many engine cores at once decides as `OIAgent` does on each seat's observation."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.ai.oi import OIAgent, load_networks
from wizard.ai.oi.agent import play_values
from wizard.ai.oi.cores import card_rows, oi_bids, oi_cards, trick_holds
from wizard.ai.oi.features import (
    card_features,
    immediate_exact,
    overall_exact,
    situation_of,
)
from wizard.ai.oi.positions import Positions
from wizard.engine import GameCore, Phase, PlayCard, WizardGame
from wizard.engine.rules import trick_winner

NETWORKS = load_networks()


def _positions(players: int, seed: int, phase: Phase) -> list[WizardGame]:
    """Copies of one game at every decision of ``phase`` (OI playing every seat)."""
    oi = OIAgent(*NETWORKS)
    game = WizardGame(players, seed=seed)
    out = []
    while not game.is_finished and len(game.round_history) < 8:
        player = game.current_player
        assert player is not None
        observation = game.observation(player)
        if observation.phase is phase:
            out.append(WizardGame.from_dict(game.to_dict()))
        game.apply(player, oi.act(observation))
    return out


@settings(max_examples=25, deadline=None)
@given(trick=st.lists(st.integers(0, 59), max_size=5, unique=True), trump=st.integers(-1, 3))
def test_what_holds_the_trick_follows_the_trick_winner_rule(trick: list[int],
                                                           trump: int) -> None:
    masks, wizards, by_trump = trick_holds(np.array([trick + [-1] * (6 - len(trick))]), trump)
    holds, wizard, trump_holds = int(masks[0]), bool(wizards[0]), bool(by_trump[0])
    for card in set(range(60)) - set(trick):
        assert bool(holds >> card & 1) == (trick_winner((*trick, card), trump) == len(trick))
    assert wizard == any(52 <= c < 56 for c in trick)
    if trick and not wizard:
        held = trick[trick_winner(tuple(trick), trump)]
        assert trump_holds == (held < 52 and held // 13 == trump)


@pytest.mark.parametrize(("players", "seed", "version"), [(3, 1, 1), (4, 2, 2), (5, 3, 2),
                                                          (6, 4, 1)])
def test_every_row_is_the_one_card_features_builds(players: int, seed: int,
                                                   version: int) -> None:
    for phase in (Phase.BIDDING, Phase.PLAYING):
        for game in _positions(players, seed, phase):
            observation = game.observation(game.current_player)
            sit = situation_of(observation)
            rows = card_rows(Positions.of([game.core]), version)
            assert rows.card.tolist() == list(sit.hand)
            assert np.array_equal(rows.rows, card_features(sit, sit.hand, version))
            for i, card in enumerate(sit.hand):
                exact = overall_exact(sit, card)
                assert (np.isnan(rows.p_overall[i]) if exact is None
                        else rows.p_overall[i] == exact)
                if rows.legal[i]:
                    exact = immediate_exact(sit, card)
                    assert (np.isnan(rows.p_immediate[i]) if exact is None
                            else rows.p_immediate[i] == exact)


@pytest.mark.parametrize(("players", "seed"), [(3, 11), (4, 12), (6, 13)])
def test_the_bids_are_oi_agents(players: int, seed: int) -> None:
    games = _positions(players, seed, Phase.BIDDING)
    oi = OIAgent(*NETWORKS)
    by_round: dict[int, list[WizardGame]] = {}
    for game in games:
        by_round.setdefault(game.core.round_number, []).append(game)
    for same_round in by_round.values():  # one call per round: many positions at once
        bids = oi_bids([g.core for g in same_round], NETWORKS[0])
        for game, bid in zip(same_round, bids, strict=True):
            action = oi.act(game.observation(game.current_player))
            assert bid == action.value


def _rated_alike(game: WizardGame, a: int, b: int) -> bool:
    """Whether OI rates cards ``a`` and ``b`` alike here (the same chance and score)."""
    oi = OIAgent(*NETWORKS)
    observation = game.observation(game.current_player)
    decision = oi.decide(observation, record=True)
    assert decision.p_overall is not None
    index = {card: i for i, card in enumerate(decision.cards)}
    legal = [c for c in decision.p_immediate]
    make, expected = play_values(decision.p_overall,
                                 np.array([decision.p_immediate[c] for c in legal]),
                                 [index[c] for c in legal], observation.bids[observation.player]
                                 or 0, observation.tricks_won[observation.player])
    i, j = legal.index(a), legal.index(b)
    return bool(abs(make[i] - make[j]) < 1e-6 and abs(expected[i] - expected[j]) < 1e-4)


@pytest.mark.parametrize(("players", "seed"), [(3, 21), (4, 22), (5, 23)])
def test_the_cards_are_oi_agents_up_to_cards_rated_alike(players: int, seed: int) -> None:
    games = _positions(players, seed, Phase.PLAYING)
    oi = OIAgent(*NETWORKS)
    rng = random.Random(seed)
    rng.shuffle(games)  # positions of different tricks and seats in one call
    by_round: dict[int, list[WizardGame]] = {}
    for game in games:
        by_round.setdefault(game.core.round_number, []).append(game)
    same = 0
    for same_round in by_round.values():
        cards = oi_cards([g.core for g in same_round], *NETWORKS)
        for game, card in zip(same_round, cards, strict=True):
            action = oi.act(game.observation(game.current_player))
            assert isinstance(action, PlayCard)
            same += card == action.card.id
            assert card == action.card.id or _rated_alike(game, card, action.card.id)
    assert same >= 0.95 * len(games)


def test_cores_of_different_rounds_are_refused() -> None:
    first, later = GameCore(4, seed=1), WizardGame(4, seed=1)
    while len(later.round_history) < 1:
        later.apply(later.current_player, later.legal_actions()[0])
    with pytest.raises(ValueError, match="one round"):
        oi_bids([first, later.core], NETWORKS[0])
