"""Worlds weighted by the other seats' card plays (`wizard.ai.search.plays`)."""

from __future__ import annotations

import math
import random

import pytest

from wizard.ai.agents.heuristic import HeuristicAgent
from wizard.ai.oi import load_networks
from wizard.ai.search import Budget
from wizard.ai.search.inference import BidInference, Evidence
from wizard.ai.search.plays import PlayInference, observed_plays
from wizard.ai.search.worlds import Knowledge, sample_hands, sample_worlds
from wizard.engine import GameOptions, Observation, Phase, WizardGame
from wizard.engine.rules import legal_cards_mask

OVERALL, _ = load_networks()


def heuristic_position(seed: int, round_number: int, options: GameOptions | None = None
                       ) -> tuple[WizardGame, Observation]:
    """A game of four heuristic players at a card decision in ``round_number`` after at
    least one full trick, with the observation of the seat to move."""
    game = WizardGame(4, options or GameOptions(), seed=seed)
    agent = HeuristicAgent()
    while True:
        me = game.current_player
        assert me is not None
        obs = game.observation(me)
        if (obs.round_number == round_number and obs.phase is Phase.PLAYING
                and len(obs.played_cards) >= 4 + len(obs.current_trick)
                and len(obs.legal_actions) > 1):
            return game, obs
        game.apply(me, agent.act(obs))


def true_deal(game: WizardGame, obs: Observation) -> list[int]:
    return [0 if seat == obs.player else sum(1 << c.id for c in game.hand(seat))
            for seat in range(4)]


def test_the_plays_are_read_with_what_each_seat_needed_and_still_held() -> None:
    _, obs = heuristic_position(3, 5)
    plays = observed_plays(obs)
    assert plays and all(p.seat != obs.player for p in plays)
    others = [c.id for c in obs.played_cards]
    assert [p.card for p in plays] == [c for c in others if c in {p.card for p in plays}]
    for play in plays:
        assert play.later >> play.card & 1  # the card was in its hand when it played
        assert play.needed <= (obs.bids[play.seat] or 0)
    # the last play of each seat has only itself left to add back
    last = {p.seat: p for p in plays}
    assert all(p.later == 1 << p.card for p in last.values())


@pytest.mark.parametrize("seed", range(6))
def test_the_true_deal_explains_heuristic_players_best(seed: int) -> None:
    # heuristic players play the model's card every time: under the real hands every play
    # is the model's card or the only legal one, and a random deal explains them worse
    game, obs = heuristic_position(seed, 6)
    model = PlayInference(0.2)
    real = true_deal(game, obs)
    truth = model.log_likelihoods(obs, [real])[0]
    choices = sum(legal_cards_mask(real[p.seat] | p.later, p.lead).bit_count() > 1
                  for p in observed_plays(obs))
    assert choices and truth == pytest.approx(choices * math.log(0.8))
    knowledge = Knowledge.of(obs)
    rng = random.Random(seed)
    sampled = model.log_likelihoods(obs, [sample_hands(knowledge, rng) for _ in range(64)])
    assert sum(sampled) / len(sampled) < truth


def test_worlds_weighted_by_the_plays_put_more_cards_where_they_are() -> None:
    # against heuristic players, the share of the other seats' cards a world places with
    # the right seat grows when the plays weigh the worlds on top of the bids
    right = {"bids": 0.0, "bids and plays": 0.0}
    bids = BidInference(OVERALL)
    for seed in range(10):
        game, obs = heuristic_position(100 + seed, 7)
        truth = true_deal(game, obs)
        for name, evidence in (("bids", Evidence(bids, None, 0.1)),
                               ("bids and plays", Evidence(bids, PlayInference(0.1), 0.1))):
            worlds = sample_worlds(obs, 32, random.Random(seed), weigh=evidence.log_weights,
                                   oversample=8)
            for world in worlds:
                for seat, hand in enumerate(truth):
                    if seat != obs.player:
                        right[name] += (world.hands[seat] & hand).bit_count() / len(worlds)
    assert right["bids and plays"] > right["bids"], right


def test_a_play_model_without_room_for_error_or_for_the_heuristic_is_refused() -> None:
    for error in (0.0, 1.0, -0.1, 2.0):
        with pytest.raises(ValueError, match="play error"):
            PlayInference(error)
        with pytest.raises(ValueError, match="plays"):
            Budget(inference=5.0, plays=error)
    with pytest.raises(ValueError, match="min_ess"):
        Budget(min_ess=1.5)
