"""Game analysis: the master's opinion of each decision, from the record and one seat's view."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.__main__ import main
from wizard.ai import analysis
from wizard.ai.agents.heuristic import HeuristicAgent
from wizard.ai.agents.random_agent import RandomAgent
from wizard.ai.analysis import (
    ANALYSIS_SEED,
    BLUNDER,
    JUDGE_VERSION,
    MISTAKE,
    AnalysisBudget,
    GameRecord,
    analyse_decision,
    analyse_game,
    analyse_slice,
    build_report,
    decision_points,
    judge_settings,
)
from wizard.ai.search import DEFAULT_BUDGET, GAME_PRIOR_WEIGHT, Budget, SearchAgent
from wizard.ai.search.prior import master_prior
from wizard.engine import Action, GameOptions, Observation, Phase, PlayCard, WizardGame

Actions = list[tuple[int, Action]]


def play(num_players: int, seed: int, rounds: int, choose: Callable[[int, Observation], Action],
         options: GameOptions | None = None) -> tuple[WizardGame, Actions]:
    """Play ``rounds`` rounds, each seat choosing with ``choose(seat, observation)``."""
    game = WizardGame(num_players, options, seed=seed)
    actions: Actions = []
    while not game.is_finished and game.round_number <= rounds:
        seat = game.current_player
        assert seat is not None
        action = choose(seat, game.observation(seat))
        actions.append((seat, action))
        game.apply(seat, action)
    return game, actions


def record_of(game: WizardGame, actions: Actions) -> GameRecord:
    return GameRecord(game.num_players, game.options, game.seed, tuple(actions))


HEURISTIC = HeuristicAgent()


def heuristic(seat: int, observation: Observation) -> Action:
    return HEURISTIC.act(observation)


def test_a_seat_that_plays_as_the_master_loses_nothing_on_any_decision() -> None:
    budget = AnalysisBudget(worlds=4)
    # the judge's search without OI: worlds refined where the table, read over the game,
    # reads like the heuristic (here from round 2 on), uniform elsewhere
    master = SearchAgent(dataclasses.replace(DEFAULT_BUDGET, worlds=4, bid_window=None),
                         seed=ANALYSIS_SEED)
    options = GameOptions(wizard_trump_dealer_chooses=True)

    def choose(seat: int, observation: Observation) -> Action:
        return master.act(observation) if seat == 0 else HEURISTIC.act(observation)

    game, actions = play(3, seed=8, rounds=6, choose=choose, options=options)
    report = analyse_game(record_of(game, actions), [0], budget)
    rounds = report["seats"][0]["rounds"]
    assert [r["round"] for r in rounds] == [1, 2, 3, 4, 5, 6]
    cards = [c for r in rounds for c in r["cards"]]
    assert len(cards) == 1 + 2 + 3 + 4 + 5 + 6
    assert sum(1 for c in cards if not c["forced"]) > 5  # real choices, not only forced cards
    assert all(c["loss"] == 0.0 and c["master"] == c["played"] and c["marker"] is None
               for c in cards)
    assert all(r["bid_loss"] == 0.0 and r["master_bid"] == r["bid"] for r in rounds)
    assert report["seats"][0]["summary"]["play_loss"] == 0.0


def test_with_the_master_bots_prior_a_seat_that_plays_as_the_master_bot_loses_nothing() -> None:
    # what the server and `wizard analyse` judge with: the master bot's blend of the
    # searched values and OI's scores, so Analyse agrees with the bot's own moves
    prior = master_prior()
    assert prior is not None, "the shipped OI networks are needed"
    budget = AnalysisBudget(worlds=4)
    master = SearchAgent(dataclasses.replace(DEFAULT_BUDGET, worlds=4, bid_window=None),
                         seed=ANALYSIS_SEED, prior=prior, bid_model=prior.overall,
                         prior_weight=GAME_PRIOR_WEIGHT)  # master v8 at 4 worlds
    plain = SearchAgent(Budget(worlds=4, bid_window=None), seed=ANALYSIS_SEED)

    def choose(seat: int, observation: Observation) -> Action:
        return master.act(observation) if seat == 0 else HEURISTIC.act(observation)

    game, actions = play(4, seed=5, rounds=6, choose=choose)
    record = record_of(game, actions)
    blended = analyse_game(record, [0], budget, prior=prior)["seats"][0]
    assert all(r["bid_loss"] == 0.0 and r["master_bid"] == r["bid"] for r in blended["rounds"])
    cards = [c for r in blended["rounds"] for c in r["cards"]]
    assert all(c["loss"] == 0.0 and c["master"] == c["played"] for c in cards)
    # the blend is what made the difference: the plain search disagrees somewhere
    ours = [(seat, a) for seat, a in actions if seat == 0]
    replayed = WizardGame(4, seed=5)
    disagreements = 0
    for seat, action in actions:
        if seat == 0:
            disagreements += plain.act(replayed.observation(0)) != action
        replayed.apply(seat, action)
    assert ours and disagreements > 0


def test_a_seat_that_plays_otherwise_is_told_what_the_master_would_play() -> None:
    game, actions = play(4, seed=3, rounds=5, choose=heuristic)
    report = analyse_game(record_of(game, actions), [1], AnalysisBudget(worlds=8))
    cards = [c for r in report["seats"][0]["rounds"] for c in r["cards"]]
    differing = [c for c in cards if c["master"] != c["played"]]
    assert differing, "the heuristic never disagreed with the master in five rounds"
    for card in differing:
        assert card["loss"] > 0.0 or card["expected"] >= card["master_expected"]
        assert card["marker"] == ("blunder" if card["loss"] >= BLUNDER else
                                  "mistake" if card["loss"] >= MISTAKE else None)


def made_bid_with_a_wizard(observation: Observation) -> PlayCard | None:
    """The wizard to throw when the seat has made its bid and is last to play a trick it
    would otherwise lose (another legal card loses it), else None."""
    me = observation.player
    assert me is not None
    if observation.phase is not Phase.PLAYING or observation.tricks_won[me] != observation.bids[me]:
        return None
    if len(observation.current_trick) != observation.num_players - 1:
        return None
    legal = [a for a in observation.legal_actions if isinstance(a, PlayCard)]
    wizards = [a for a in legal if a.card.kind.value == "wizard"]
    trick_has_wizard = any(p.card.kind.value == "wizard" for p in observation.current_trick)
    if not wizards or trick_has_wizard or len(legal) == len(wizards) or len(observation.hand) < 4:
        return None
    return wizards[0]


def test_throwing_a_wizard_when_the_bid_is_made_is_marked_a_mistake_or_worse() -> None:
    # (judge 2 lost 22.5 points here, a blunder; judge 3's refined worlds see that the
    # wizard, kept, would likely take a trick later too: 12.8, a mistake)
    blunder: dict[str, Any] = {}

    def choose(seat: int, observation: Observation) -> Action:
        wizard = made_bid_with_a_wizard(observation) if seat == 0 and not blunder else None
        if wizard is not None:
            blunder.update(round=observation.round_number, trick=observation.trick_number,
                           card=wizard.card.id)
            return wizard
        return HEURISTIC.act(observation)

    game, actions = play(4, seed=0, rounds=8, choose=choose)
    assert blunder, "no such position in this seeded game"
    record = record_of(game, actions)
    step = next(i for i, (seat, action) in enumerate(actions) if seat == 0 and isinstance(
        action, PlayCard) and action.card.id == blunder["card"])
    number = sum(1 for seat, _ in actions[:step] if seat == 0)
    decision = analyse_slice(record, [0], AnalysisBudget(), start=number,
                             max_seconds=0.001).decisions[0]
    assert decision["step"] == step and decision["played"] == blunder["card"]
    assert decision["marker"] in ("mistake", "blunder") and decision["loss"] >= MISTAKE
    assert decision["master"] != blunder["card"]
    assert decision["expected"] < decision["master_expected"]


def test_the_analysis_sees_only_the_deciding_seats_observation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Observation] = []

    def spy(real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(observation: Observation, *args: Any) -> Any:
            seen.append(observation)
            return real(observation, *args)
        return wrapped

    for name in ("bid_values", "card_values", "trump_values"):
        monkeypatch.setattr(analysis, name, spy(getattr(analysis, name)))
    game, actions = play(4, seed=5, rounds=4, choose=heuristic)
    analyse_game(record_of(game, actions), [2], AnalysisBudget(worlds=2))
    # each decision is searched twice (choosing worlds, judging worlds), on the same view
    unique = [o for i, o in enumerate(seen) if i == 0 or o != seen[i - 1]]
    assert len(seen) == 2 * len(unique) and len(unique) > 5
    replay = WizardGame(4, seed=5)
    steps = iter(actions)
    for observation in unique:
        assert observation.player == 2
        while True:  # the same position in a fresh replay
            seat, action = next(steps)
            if seat == 2 and replay.observation(2) == observation:
                break
            replay.apply(seat, action)
        held = {c.id for s in (0, 1, 3) for c in replay.hand(s)}
        assert held.isdisjoint(c.id for c in observation.hand)
        text = json.dumps(observation.to_dict())
        assert '"hands"' not in text
        replay.apply(seat, action)


def single_card_deal(seed: int) -> tuple[int, int, int]:
    game = WizardGame(3, seed=seed)
    trump = game.trump_card
    return (game.hand(0)[0].id, trump.id if trump else -1, game.dealer)


def test_other_hands_do_not_change_a_seats_analysis() -> None:
    """Two deals where seat 0 sees the same (its card, the trump card, the dealer) but the
    others hold different cards: seat 0's analysis of round 1 is the same in both."""
    wanted = single_card_deal(1)
    other = next(s for s in range(2, 200_000) if single_card_deal(s) == wanted)
    assert WizardGame(3, seed=other).hand(1) != WizardGame(3, seed=1).hand(1)

    def round_one(seed: int) -> dict[str, Any]:
        bids = {0: 0, 1: 0, 2: 0}
        game = WizardGame(3, seed=seed)
        actions: Actions = []
        while game.round_number == 1 and not game.is_finished:
            seat = game.current_player
            assert seat is not None
            legal = game.legal_actions(seat)
            wanted_bid = [a for a in legal if getattr(a, "value", None) == bids[seat]]
            action = wanted_bid[0] if wanted_bid else legal[0]
            actions.append((seat, action))
            game.apply(seat, action)
        decisions = analyse_slice(record_of(game, actions), [0], AnalysisBudget(worlds=16))
        return decisions.decisions[0]  # the bid: nothing of the others is public yet

    first, second = round_one(1), round_one(other)
    assert first == second


def test_slices_add_up_to_the_whole_analysis() -> None:
    game, actions = play(3, seed=2, rounds=4, choose=heuristic)
    record = record_of(game, actions)
    budget = AnalysisBudget(worlds=2)
    whole = analyse_slice(record, [0, 2], budget)
    assert whole.done and len(whole.decisions) == whole.total == record.decisions_of([0, 2])
    pieces: list[dict[str, Any]] = []
    while True:
        part = analyse_slice(record, [0, 2], budget, start=len(pieces), max_seconds=1e-6)
        assert len(part.decisions) == 1
        pieces += part.decisions
        if part.done:
            break
    assert pieces == whole.decisions


def test_the_report_holds_the_actual_results_and_sums_the_losses() -> None:
    game, actions = play(4, seed=9, rounds=15, choose=heuristic)
    record = record_of(game, actions)
    decisions = analyse_slice(record, [3], AnalysisBudget(worlds=1)).decisions
    report = build_report(record, [3], decisions, AnalysisBudget(worlds=1))
    seat = report["seats"][0]
    assert len(seat["rounds"]) == 15
    for row, result in zip(seat["rounds"], game.round_history, strict=True):
        assert row["bid"] == result.bids[3] and row["tricks"] == result.tricks[3]
        assert row["points"] == result.score_changes[3]
        assert len(row["cards"]) == row["round"]
    summary = seat["summary"]
    assert summary["actual_total"] == game.scores[3]
    assert summary["play_loss"] == pytest.approx(
        sum(c["loss"] for r in seat["rounds"] for c in r["cards"]), abs=0.01)
    json.dumps(report)  # JSON-ready


@pytest.mark.parametrize("bad, message", [
    ([], "JSON object"),
    ({"num_players": 4, "seed": 1}, "actions"),
    ({"num_players": 9, "seed": 1, "actions": []}, "num_players"),
    ({"num_players": 4, "seed": "x", "actions": []}, "seed"),
    ({"num_players": 4, "seed": 1, "actions": [{"seat": 0}]}, "action"),
    ({"num_players": 4, "seed": 1, "actions": [], "options": {"nope": True}}, "unknown option"),
])
def test_a_malformed_record_is_refused_with_a_clear_error(bad: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameRecord.from_dict(bad)


def test_a_record_that_does_not_replay_is_refused() -> None:
    game = WizardGame(4, seed=1)
    seat = game.current_player
    assert seat is not None
    wrong = (seat + 1) % 4  # not this seat's turn
    record = GameRecord(4, GameOptions(), 1, ((wrong, game.legal_actions(seat)[0]),))
    with pytest.raises(ValueError):
        list(decision_points(record, [wrong]))
    with pytest.raises(ValueError, match="no seat"):
        record.check_seats([4])


def test_analyse_decision_refuses_a_position_that_is_not_the_seats_turn() -> None:
    game = WizardGame(4, seed=1)
    seat = game.current_player
    assert seat is not None
    observation = game.observation((seat + 1) % 4)
    with pytest.raises(ValueError):
        analyse_decision(observation, game.legal_actions(seat)[0], AnalysisBudget(worlds=1))
    with pytest.raises(ValueError, match="at least 1 world"):
        AnalysisBudget(worlds=0)


def test_wizard_analyse_reads_an_exported_record(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    game, actions = play(3, seed=4, rounds=3, choose=heuristic)
    exported = {"id": "g_x", "num_players": 3, "options": game.options.to_dict(),
                "seed": game.seed, "players": [{"seat": s, "name": f"P{s}"} for s in range(3)],
                "actions": [{"seq": i + 1, "seat": s, "action": a.to_dict()}
                            for i, (s, a) in enumerate(actions)]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(exported))
    assert main(["analyse", str(path), "--json", "--worlds", "2", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game_id"] == "g_x" and [s["name"] for s in report["seats"]] == ["P0", "P1",
                                                                                   "P2"]
    assert main(["analyse", str(path), "--worlds", "2", "--seats", "1", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "Seat 2: P1" in text and "lost in bidding" in text
    path.write_text("{not json")
    assert main(["analyse", str(path), "--quiet"]) == 2
    assert "not a JSON game record" in capsys.readouterr().err
    assert main(["analyse", "g_missing", "--db", str(tmp_path / "none.db"), "--quiet"]) == 2


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.sets(st.integers(0, 2), min_size=1),
       rounds=st.integers(1, 3))
def test_every_decision_is_judged_against_a_legal_master_choice(
        seed: int, seats: set[int], rounds: int) -> None:
    rng_agent = RandomAgent(seed)
    game, actions = play(3, seed=seed, rounds=rounds,
                         choose=lambda seat, obs: rng_agent.act(obs),
                         options=GameOptions(wizard_trump_dealer_chooses=True))
    record = record_of(game, actions)
    budget = AnalysisBudget(worlds=1)
    decisions = analyse_slice(record, sorted(seats), budget).decisions
    assert len(decisions) == record.decisions_of(seats)
    points = list(decision_points(record, sorted(seats)))
    for point, decision in zip(points, decisions, strict=True):
        legal = point.observation.legal_actions
        kind = {"bid": "value", "card": "card", "trump": "suit"}[decision["kind"]]
        values = [getattr(a, kind) for a in legal]
        master = decision["master"]
        as_value = {"bid": lambda v: v, "card": lambda c: c.id, "trump": lambda s: s.index}
        assert master in [as_value[decision["kind"]](v) for v in values]
        assert decision["seat"] == point.seat and decision["step"] == point.step
        assert decision["loss"] >= 0.0
        assert decision["marker"] == ("blunder" if decision["loss"] >= BLUNDER else
                                      "mistake" if decision["loss"] >= MISTAKE else None)
        if decision["master"] == decision["played"]:
            assert decision["loss"] == 0.0
    # any slicing gives the same decisions
    first = analyse_slice(record, sorted(seats), budget, start=0, max_seconds=1e-9).decisions
    rest = analyse_slice(record, sorted(seats), budget, start=len(first)).decisions
    assert first + rest == decisions


#: What the judge of `JUDGE_VERSION` 5 (master v8, bot version 10) depends on besides the
#: record. A stored report of an earlier judge is analysed again when asked for, so a change
#: to these (or to the search's code) must raise the version: record its settings here then.
JUDGE_5 = {
    "budget": {"worlds": 32, "bid_window": 3, "bid_spread": None, "inference": 5.0,
               "oversample": 8, "plays": 0.3, "min_ess": 0.1, "refine": 200,
               "whole_game": True, "oi_worlds": 0,  # (fields added with 0, their old rule)
               "oi_mix": 0.0},
    "prior_weight": {"low": 0.3, "high": 0.8, "prior": 0.2, "deals": 64, "game": True},
    "refine": {"table": 0.6, "error": 0.05, "min_ess": 0.03},
    "networks": {
        "oi_overall": "b9eee19643584d1966ce51ebcdae055c794dad945c4671334f27af4974828ba7",
        "oi_immediate": "2d4cb1aa0bca4d7086dc42b4bd0724f760ec1169c68a4948b652c77e039c088a"},
    "seed": 0, "mistake": 5.0, "blunder": 15.0,
}


def test_the_judge_version_names_what_the_judge_depends_on() -> None:
    assert JUDGE_VERSION == 5
    changed = {k: v for k, v in judge_settings().items() if JUDGE_5.get(k) != v}
    assert not changed, (f"the judge changed ({changed}): raise JUDGE_VERSION in "
                         "wizard/ai/analysis.py and record its settings here")
    report = build_report(GameRecord(3, GameOptions(), 1, ()), [0], [],
                          AnalysisBudget(worlds=1))
    assert report["seats"][0]["judge"] == JUDGE_VERSION
