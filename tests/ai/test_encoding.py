"""Feature layout, masks and the action space."""

from __future__ import annotations

import random

import numpy as np
import pytest

from wizard.ai.encoding import (
    BLOCKS,
    ENCODING_VERSION,
    FEATURE_SIZE,
    ActionSpace,
    encode_batch,
    encode_observation,
)
from wizard.engine import (
    ACTIONS_BY_INDEX,
    NUM_ACTIONS,
    Bid,
    ChooseTrump,
    GameOptions,
    PlayCard,
    Suit,
    WizardGame,
    card_from_id,
)


def random_positions(num_players: int, count: int, seed: int, options: GameOptions | None = None):
    game = WizardGame(num_players, options, seed=seed)
    rng = random.Random(seed)
    out = []
    while not game.is_finished and len(out) < count:
        player = game.current_player
        obs = game.observation(player)
        out.append(obs)
        game.apply(player, rng.choice(obs.legal_actions))
    return out


def test_blocks_tile_the_feature_vector_without_gaps() -> None:
    position = 0
    for block in BLOCKS.values():
        assert block.start == position
        position = block.stop
    assert position == FEATURE_SIZE == 315
    assert ENCODING_VERSION >= 1


@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_encoding_length_and_masks_for_every_player_count(num_players: int) -> None:
    for obs in random_positions(num_players, 200, seed=num_players):
        features = encode_observation(obs)
        assert features.shape == (FEATURE_SIZE,) and features.dtype == np.float32
        mask = ActionSpace.mask(obs)
        assert mask.shape == (NUM_ACTIONS,)
        legal = {ACTIONS_BY_INDEX[i] for i in np.flatnonzero(mask)}
        assert legal == set(obs.legal_actions)


def test_encoding_shows_the_own_hand_and_the_player_count() -> None:
    obs = random_positions(5, 1, seed=3)[0]
    features = encode_observation(obs)
    hand = features[BLOCKS["hand"]]
    assert set(np.flatnonzero(hand)) == {c.id for c in obs.hand}
    assert list(features[BLOCKS["num_players"]]) == [0, 0, 1, 0]
    opponents = features[BLOCKS["opponents"]].reshape(5, 7)
    assert list(opponents[:, 0]) == [1, 1, 1, 1, 0]  # four opponents present, one padded slot


def test_opponents_are_ordered_from_the_next_seat() -> None:
    game = WizardGame(4, seed=11, first_dealer=3)  # seat 0 bids first
    game.apply(0, Bid(1))
    game.apply(1, Bid(0))
    obs = game.observation(3)  # seat 3: next is seat 0 (bid 1), then 1 (bid 0), then 2 (none)
    opponents = encode_observation(obs)[BLOCKS["opponents"]].reshape(5, 7)
    assert opponents[0, 2] == 1 and opponents[0, 3] == pytest.approx(1 / 20)
    assert opponents[1, 2] == 1 and opponents[1, 3] == 0
    assert opponents[2, 1] == 0 and opponents[2, 2] == 0


def test_hidden_bids_are_not_encoded_as_visible() -> None:
    game = WizardGame(4, GameOptions(hidden_bids=True), seed=11, first_dealer=3)
    game.apply(0, Bid(1))
    opponents = encode_observation(game.observation(1))[BLOCKS["opponents"]].reshape(5, 7)
    seat0 = opponents[2]  # seat 1's opponents: 2, 3, 0
    assert seat0[1] == 1 and seat0[2] == 0 and seat0[3] == 0


def test_option_flags_and_choosing_trump_phase_are_encoded() -> None:
    options = GameOptions(hidden_bids=True, forbid_even_bids=False,
                          wizard_trump_dealer_chooses=True)
    for seed in range(500):
        game = WizardGame(3, options, seed=seed)
        if game.phase.value == "choosing_trump":
            break
    else:
        pytest.fail("no turned wizard in round 1 of 500 games")
    features = encode_observation(game.observation(game.current_player))
    assert list(features[BLOCKS["options"]]) == [1, 0, 1]
    assert list(features[BLOCKS["phase"]]) == [0, 0, 1]


def test_encode_batch_equals_stacked_single_encodings() -> None:
    observations = random_positions(4, 50, seed=5)
    batch = encode_batch(observations)
    assert batch.shape == (50, FEATURE_SIZE)
    for row, obs in zip(batch, observations, strict=True):
        assert np.array_equal(row, encode_observation(obs))


def test_spectator_observations_cannot_be_encoded() -> None:
    with pytest.raises(ValueError, match="spectator"):
        encode_observation(WizardGame(4, seed=1).observation(None))


def test_action_space_round_trips_every_index() -> None:
    assert ActionSpace.SIZE == 85
    for index in range(ActionSpace.SIZE):
        assert ActionSpace.index(ActionSpace.action(index)) == index
    assert ActionSpace.index(Bid(0)) == 0
    assert ActionSpace.index(PlayCard(card_from_id(0))) == 21
    assert ActionSpace.index(PlayCard(card_from_id(59))) == 80
    assert ActionSpace.index(ChooseTrump(Suit.BLUE)) == 84
    with pytest.raises(ValueError):
        ActionSpace.action(85)
