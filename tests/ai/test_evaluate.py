"""Duplicate evaluation: same hands in every rotation, job-count independence, strength."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from wizard.ai.agents import Agent, HeuristicAgent
from wizard.ai.evaluate import deal_seed, evaluate, play_deal
from wizard.engine import Action, GameOptions, Observation, WizardGame


class HandRecorder(Agent):
    """A heuristic that writes down the first hand it sees in each game."""

    name = "recorder"

    def __init__(self) -> None:
        self.inner = HeuristicAgent()
        self.hands: list[tuple[int, ...]] = []
        self._seen = False

    def reset(self, seed: int | None = None) -> None:
        self._seen = False

    def act(self, observation: Observation) -> Action:
        if not self._seen:
            self.hands.append(tuple(c.id for c in observation.hand))
            self._seen = True
        return self.inner.act(observation)


def test_every_rotation_deals_the_same_hands_to_the_seats() -> None:
    recorders = [HandRecorder() for _ in range(4)]
    records = play_deal(recorders, deal=0, seed=7, options=WizardGame(4, seed=0).options)
    assert [r.rotation for r in records] == [0, 1, 2, 3]
    reference = WizardGame(4, seed=deal_seed(7, 0))
    seat_hands = {tuple(c.id for c in reference.hand(s)) for s in range(4)}
    for recorder in recorders:
        # each agent held four different seats' hands, i.e. every hand of the deal
        assert set(recorder.hands) == seat_hands


def test_results_do_not_depend_on_the_number_of_jobs() -> None:
    agents = ["heuristic", "random", "random"]
    one = evaluate(agents, games=12, seed=3, jobs=1)
    two = evaluate(agents, games=12, seed=3, jobs=2)
    assert one == two
    assert one.games == 12 and one.deals == 4


def test_heuristic_beats_random_agents() -> None:
    result = evaluate(["heuristic", "random", "random", "random"], games=40, seed=11)
    heuristic, *randoms = result.agents
    assert heuristic.mean > 100
    assert heuristic.win_rate >= 0.9
    assert all(r.mean < -150 for r in randoms)
    assert heuristic.ci95[0] < heuristic.mean < heuristic.ci95[1]
    assert heuristic.bid_accuracy > max(r.bid_accuracy for r in randoms)


def test_a_margin_is_paired_by_deal_against_the_other_names() -> None:
    # Who is ahead: the heuristic's score minus the randoms' mean, deal by deal. Both sides
    # hold the same cards, so the paired interval is narrower than the two unpaired ones.
    result = evaluate(["heuristic", "random", "heuristic", "random"], games=48, seed=5)
    heuristic, random_agent = result.agents[0], result.agents[1]
    randoms = (result.agents[1].mean + result.agents[3].mean) / 2
    assert heuristic.margin == pytest.approx(heuristic.mean - randoms)
    assert random_agent.margin == pytest.approx(
        random_agent.mean - (result.agents[0].mean + result.agents[2].mean) / 2)
    low, high = heuristic.margin_ci95
    assert 0 < low < heuristic.margin < high
    widths = [a.ci95[1] - a.ci95[0] for a in result.agents]
    assert high - low < widths[0] + max(widths[1], widths[3])  # the unpaired bound
    alike = evaluate(["heuristic"] * 3, games=6, seed=1).agents
    assert all(a.margin == 0 and a.margin_ci95 == (0.0, 0.0) for a in alike)


def test_ties_count_as_wins_for_everyone_tied() -> None:
    # three identical deterministic agents on every rotation: shares can exceed 1 in total
    result = evaluate(["heuristic"] * 3, games=9, seed=1)
    assert sum(a.win_rate for a in result.agents) >= 1.0
    assert all(abs(a.mean - result.agents[0].mean) < 1e-9 for a in result.agents)


def test_cli_prints_one_json_object() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "wizard", "evaluate", "--agents", "heuristic,random,random",
         "--games", "6", "--seed", "2", "--json", "--quiet"],
        capture_output=True, text=True, timeout=120, check=True,
    )
    data = json.loads(out.stdout)
    assert data["games"] == 6
    assert [a["name"] for a in data["agents"]] == ["heuristic", "random", "random"]
    assert set(data["agents"][0]) >= {"name", "mean", "stderr", "ci95", "win_rate",
                                      "bid_accuracy"}


def test_cli_rejects_unknown_agents_and_options_with_a_message() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "wizard", "evaluate", "--agents", "heuristic,nobody,random",
         "--games", "3", "--quiet"],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 2 and "unknown agent 'nobody'" in out.stderr
    out = subprocess.run(
        [sys.executable, "-m", "wizard", "evaluate", "--agents", "heuristic,random,random",
         "--games", "3", "--options", "no_such_rule", "--quiet"],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 2 and "unknown option 'no_such_rule'" in out.stderr


def test_short_games_play_their_rounds_and_count_bid_accuracy_per_round_played() -> None:
    records = play_deal([HeuristicAgent(), HeuristicAgent(), HeuristicAgent(), HeuristicAgent()],
                        deal=0, seed=3, options=GameOptions(rounds=2))
    assert [r.rounds for r in records] == [2] * 4
    assert all(0 <= e <= 2 for r in records for e in r.exact_bids)
    result = evaluate(["heuristic", "random", "random"], games=3, seed=1,
                      options=GameOptions(rounds=3))
    assert result.games == 3 and 0.0 <= result.agents[0].bid_accuracy <= 1.0
    with pytest.raises(ValueError, match="rounds must be 1-15 for 4 players, got 16"):
        evaluate(["heuristic", "random", "random", "random"], games=4,
                 options=GameOptions(rounds=16))


def test_cli_plays_short_games_and_refuses_a_length_the_players_cannot_deal() -> None:
    command = [sys.executable, "-m", "wizard", "evaluate", "--agents",
               "heuristic,random,random,random", "--games", "4", "--seed", "2", "--json",
               "--quiet"]
    out = subprocess.run([*command, "--rounds", "2"], capture_output=True, text=True,
                         timeout=120, check=True)
    assert json.loads(out.stdout)["games"] == 4
    out = subprocess.run([*command, "--rounds", "16"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "rounds must be 1-15 for 4 players, got 16" in out.stderr
