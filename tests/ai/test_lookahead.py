"""The features after a card (`wizard.ai.lookahead`) against the engine playing that card."""

from __future__ import annotations

import random

import numpy as np
import pytest

from wizard.ai.encoding import BLOCKS, OPPONENT_FEATURES, ActionSpace, encode_observation
from wizard.ai.lookahead import after_card, card_rows
from wizard.engine import PLAY_BASE, GameOptions, Phase, PlayCard, WizardGame

#: each opponent's tricks: not in the features of a trick the seat lost (who won it is not)
OPPONENT_TRICKS = [BLOCKS["opponents"].start + k * OPPONENT_FEATURES + 4 for k in range(5)]


def decisions(seed: int) -> list[WizardGame]:
    """Every card decision with a choice of a game of random play, as a game to clone."""
    rng = random.Random(seed)
    game = WizardGame(rng.choice((3, 4, 5, 6)), GameOptions(), seed=seed)
    out = []
    while not game.is_finished:
        seat = game.current_player
        obs = game.observation(seat)
        if obs.phase is Phase.PLAYING and len(obs.legal_actions) > 1:
            out.append(game.clone())
        game.apply(seat, rng.choice(obs.legal_actions))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_features_after_a_card_read_as_the_engine_has_it(seed: int) -> None:
    checked = won = 0
    for game in decisions(seed):
        seat = game.current_player
        obs = game.observation(seat)
        features = encode_observation(obs)[None, :]
        assert card_rows(features, ActionSpace.mask(obs)[None, :]).tolist() == [0]
        for action in obs.legal_actions:
            assert isinstance(action, PlayCard)
            mine, mask = after_card(features, np.array([action.card.id]))
            played = game.clone()
            played.apply(seat, action)
            after = played.observation(seat)
            if after.round_number != obs.round_number:
                continue  # the round ended: the next one is dealt
            expected = encode_observation(after)
            if after.tricks_won[seat] != obs.tricks_won[seat]:
                won += 1
            elif after.tricks_won != obs.tricks_won:  # another seat took the trick
                expected[OPPONENT_TRICKS] = mine[0, OPPONENT_TRICKS]
            assert np.array_equal(mine[0], expected), (obs, action)
            assert np.flatnonzero(mask[0]).tolist() == sorted(PLAY_BASE + c.id for c in after.hand)
            checked += 1
    assert checked > 100 and won > 5


def test_only_card_decisions_with_a_choice_are_looked_ahead() -> None:
    game = WizardGame(4, GameOptions(), seed=5)
    obs = game.observation(game.current_player)
    assert obs.phase is Phase.BIDDING
    assert card_rows(encode_observation(obs)[None, :], ActionSpace.mask(obs)[None, :]).size == 0
