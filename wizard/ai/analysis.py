"""Game analysis: what the master (search) bot thinks of each bid and card of a finished game.

Everything comes from the stored record alone (`GameRecord`: options, seed,
seats, actions). The game is replayed with the engine and, at each decision of
an analysed seat, only that seat's `Observation` is handed to the search
(`wizard.ai.search`): the worlds are sampled from what the seat knew then,
never from the other hands. For every decision the master's candidates are
valued on the **same** sampled worlds: the master chooses on one set of worlds
and the points a choice cost are the master's choice's value minus the value of
the choice made, both on a second, independent set (`analyse_decision`):

- a bid: the player's bid and the master's bid with their expected round
  scores (every legal bid is searched, ``bid_window=None``) and the simulated
  distribution of tricks;
- a card: the master's card and the expected points lost by the card played,
  marked ``"mistake"`` from `MISTAKE` points and ``"blunder"`` from `BLUNDER`;
- a trump choice (after a turned wizard): counted with the bidding.

A decision with one legal action costs nothing and is not searched. The values
depend on the observation, the budget and `ANALYSIS_SEED` only, so a seat that
played as a `SearchAgent` with that seed and budget (bids with
``bid_window=None``) loses 0 points on every decision.

The work is split into decisions so that a worker can run a slice at a time
(`analyse_slice`: the server sends short slices to the pool's low-priority
background worker and reports progress between them); `build_report` turns
the decisions into the per-seat report (rounds, cards, summary).

>>> from wizard.engine import WizardGame
>>> game, actions = WizardGame(3, seed=4), []
>>> for _ in range(6):  # round 1: a bid each, then a card each
...     seat = game.current_player
...     actions.append((seat, game.legal_actions()[0]))
...     _ = game.apply(seat, actions[-1][1])
>>> record = GameRecord(3, game.options, 4, tuple(actions))
>>> [d["kind"] for d in analyse_slice(record, [0], AnalysisBudget(worlds=2)).decisions]
['bid', 'card']
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from wizard.engine import (
    BID_BASE,
    PLAY_BASE,
    TRUMP_BASE,
    Action,
    Bid,
    ChooseTrump,
    GameOptions,
    Observation,
    PlayCard,
    WizardGame,
    action_from_dict,
)

from .oi import IMMEDIATE_NAME, OVERALL_NAME, OIAgent
from .policy import models_dir
from .search import (
    GAME_PRIOR_WEIGHT,
    V8_BUDGET,
    Budget,
    Scorer,
    bid_values,
    blend,
    card_values,
    trump_values,
)
from .search.budget import HEURISTIC_TABLE, REFINE_ERROR, REFINE_MIN_ESS
from .search.table import weight_at

#: the seed of the analysis' worlds (with the position: see `wizard.ai.search`)
ANALYSIS_SEED = 0
MISTAKE = 5.0  # expected points lost from which a decision is a "mistake"
BLUNDER = 15.0  # ... and a "blunder"
#: The judge a report comes from (each seat's ``"judge"``): raised whenever the values a
#: report holds change (the search's budget, OI's weight, the networks). 2: master v5's
#: search and blend (bot version 7); 3: master v6's (bot version 8, its worlds refined
#: where the table reads like the heuristic); 4: master v7's (bot version 9, 200 swaps a
#: world instead of 100); 5: master v8's (bot version 10, the table read over the game,
#: OI at 0.3 where it reads like the heuristic); a stored report without the field was made
#: before it existed, by an earlier judge. A server analyses such a seat again when asked.
JUDGE_VERSION = 5
#: the judge's search: master v8's, the heuristic playing the other seats in every rollout
#: (master v9's OI rollouts are not the judge's yet: docs/ai.md, game analysis)
JUDGE_BUDGET = V8_BUDGET


def by_current_judge(report: dict[str, Any]) -> bool:
    """Whether a stored seat report comes from today's judge (`JUDGE_VERSION`)."""
    return report.get("judge") == JUDGE_VERSION


def judge_settings() -> dict[str, Any]:
    """What the judge's values depend on besides the record: the search's budget, OI's
    weight read from the table, and the OI networks' files (SHA-256). The tests keep the
    settings of `JUDGE_VERSION`: a change here without raising it fails them."""
    files = {name: hashlib.sha256((models_dir() / f"{name}.onnx").read_bytes()).hexdigest()
             for name in (OVERALL_NAME, IMMEDIATE_NAME)}
    return {"budget": dataclasses.asdict(JUDGE_BUDGET),
            "prior_weight": dataclasses.asdict(GAME_PRIOR_WEIGHT), "networks": files,
            "refine": {"table": HEURISTIC_TABLE, "error": REFINE_ERROR,
                       "min_ess": REFINE_MIN_ESS},
            "seed": ANALYSIS_SEED, "mistake": MISTAKE, "blunder": BLUNDER}


@dataclass(frozen=True, slots=True)
class AnalysisBudget:
    """The per-game budget: ``worlds`` sampled deals per decision, at most ``seconds`` in all.

    Raises `ValueError` for fewer than one world or a non-positive time.
    """

    worlds: int = 32
    seconds: float = 300.0

    def __post_init__(self) -> None:
        if type(self.worlds) is not int or self.worlds < 1:
            raise ValueError(f"an analysis needs at least 1 world, got {self.worlds!r}")
        if not self.seconds > 0:
            raise ValueError(f"the analysis time must be positive, got {self.seconds!r}")

    def search(self, bids: bool) -> Budget:
        """The search budget of one decision: the master's (worlds weighted by the bids),
        with every legal bid for a bid."""
        return dataclasses.replace(JUDGE_BUDGET, worlds=self.worlds,
                                   bid_window=None if bids else JUDGE_BUDGET.bid_window)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game as stored: enough to replay it exactly (``actions``: (seat, action) in order)."""

    num_players: int
    options: GameOptions
    seed: int
    actions: tuple[tuple[int, Action], ...]
    players: tuple[dict[str, Any], ...] = ()
    game_id: str | None = None

    @staticmethod
    def from_dict(data: Any) -> GameRecord:
        """The record of ``GET /api/games/{id}`` (or an exported file of it).

        Raises `ValueError` naming what is missing or malformed.
        """
        if not isinstance(data, dict):
            raise ValueError("a game record must be a JSON object")
        for key in ("num_players", "seed", "actions"):
            if key not in data:
                raise ValueError(f"the game record has no {key!r}")
        num_players, seed = data["num_players"], data["seed"]
        if type(num_players) is not int or not 3 <= num_players <= 6:
            raise ValueError(f"num_players must be 3-6, got {num_players!r}")
        if type(seed) is not int:
            raise ValueError(f"seed must be an integer, got {seed!r}")
        if not isinstance(data["actions"], list):
            raise ValueError("actions must be a list")
        actions = []
        for number, step in enumerate(data["actions"]):
            if not isinstance(step, dict) or type(step.get("seat")) is not int:
                raise ValueError(f"action {number} needs a seat and an action")
            actions.append((step["seat"], action_from_dict(step.get("action"))))
        players = data.get("players") or []
        return GameRecord(num_players, GameOptions.from_dict(data.get("options")), seed,
                          tuple(actions), tuple(p for p in players if isinstance(p, dict)),
                          data.get("id") if isinstance(data.get("id"), str) else None)

    def new_game(self) -> WizardGame:
        return WizardGame(self.num_players, self.options, seed=self.seed)

    def check_seats(self, seats: Sequence[int]) -> list[int]:
        """``seats`` sorted and deduplicated; raises `ValueError` for a seat not at the table."""
        for seat in seats:
            if type(seat) is not int or not 0 <= seat < self.num_players:
                raise ValueError(f"no seat {seat!r} in a {self.num_players}-player game")
        return sorted(set(seats))

    def decisions_of(self, seats: Sequence[int]) -> int:
        """How many decisions of ``seats`` the record holds (the analysis' progress total)."""
        wanted = set(seats)
        return sum(1 for seat, _ in self.actions if seat in wanted)


@dataclass(frozen=True, slots=True)
class DecisionPoint:
    """One decision of an analysed seat: its observation then, and what it did."""

    number: int  # index among the analysed seats' decisions
    step: int  # index of the action in the record
    seat: int
    observation: Observation
    action: Action


def decision_points(record: GameRecord, seats: Sequence[int],
                    start: int = 0) -> Iterator[DecisionPoint]:
    """Replay ``record``; yield the decisions of ``seats`` from number ``start`` on.

    Only the deciding seat's observation is built. Raises `ValueError` (or the
    engine's `IllegalActionError`) for a record that does not replay.
    """
    wanted = set(record.check_seats(seats))
    game = record.new_game()
    number = 0
    for step, (seat, action) in enumerate(record.actions):
        if game.is_finished:
            raise ValueError(f"action {step} comes after the end of the game")
        if seat in wanted:
            if number >= start:
                yield DecisionPoint(number, step, seat, game.observation(seat), action)
            number += 1
        game.apply(seat, action)


def _marker(loss: float) -> str | None:
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    return None


def _judge(choose: dict[int, float], judge: dict[int, float], played: int) -> tuple[int, float]:
    """The master's choice (best on the choosing worlds) and the points ``played`` loses.

    The loss is measured on the other, independent worlds: the best of many noisy
    estimates is biased upwards, so judging on the worlds that chose would call
    even the master's own second opinion a mistake.
    """
    # the best value; a tie with the choice made goes to it (the master would not object)
    best = max(choose, key=lambda key: (choose[key], key == played, -key))
    if best == played:
        return played, 0.0
    return best, max(0.0, judge[best] - judge[played])


def analyse_decision(observation: Observation, action: Action, budget: AnalysisBudget,
                     prior: Scorer | None = None) -> dict[str, Any]:
    """What the master thinks of ``action`` in ``observation`` (the deciding seat's view only).

    The master chooses on worlds seeded with `ANALYSIS_SEED` (as a `SearchAgent`
    with that seed would) and both choices are then valued on a second,
    independent set of worlds (the same worlds for both). With ``prior`` (the
    master bot's: `wizard.ai.search.prior.master_prior`) every searched value is
    `blend`-ed with its score, as the master bot blends them when it plays. Returns a JSON-ready
    dict: ``kind`` (bid / card / trump), ``played`` and ``master`` (bid, card id
    or suit index), their expected round points, ``loss`` (>= 0) and ``marker``.
    Raises `ValueError` unless it is the observer's turn.

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=2)
    >>> obs = game.observation(game.current_player)
    >>> result = analyse_decision(obs, obs.legal_actions[0], AnalysisBudget(worlds=2))
    >>> result["kind"], result["loss"] >= 0
    ('bid', True)
    """
    base = {"seat": observation.player, "round": observation.round_number,
            "trick": observation.trick_number}
    seeds = (ANALYSIS_SEED, ANALYSIS_SEED + 1)
    scores = prior.action_scores(observation) if prior is not None and len(
        observation.legal_actions) > 1 else None
    bid_model = prior.overall if isinstance(prior, OIAgent) else None  # weighs the worlds
    # the weight master reads from the table (bot version 10): the others' plays say how far
    # the search's heuristic rollouts model them
    weight = 0.0 if scores is None else weight_at(GAME_PRIOR_WEIGHT, observation, ANALYSIS_SEED)

    def valued(values: dict[int, float]) -> dict[int, float]:
        return values if scores is None else blend(values, scores, weight)

    if isinstance(action, Bid):
        search = budget.search(bids=True)
        choose_bids, judge_bids = (bid_values(observation, search, seed, bid_model)
                                   for seed in seeds)
        judged = valued({BID_BASE + b: v.value for b, v in judge_bids.items()})
        best, loss = _judge(valued({BID_BASE + b: v.value for b, v in choose_bids.items()}),
                            judged, BID_BASE + action.value)
        best -= BID_BASE
        return {**base, "kind": "bid", "played": action.value, "master": best,
                "expected": judged[BID_BASE + action.value],
                "master_expected": judged[BID_BASE + best],
                "tricks": list(judge_bids[action.value].tricks),
                "master_tricks": list(judge_bids[best].tricks),
                "loss": loss, "marker": _marker(loss)}
    if isinstance(action, PlayCard):
        played = action.card.id
        if len(observation.legal_actions) == 1:
            return {**base, "kind": "card", "played": played, "master": played,
                    "expected": None, "master_expected": None, "loss": 0.0, "marker": None,
                    "forced": True}
        search = budget.search(bids=False)
        choose, judge = ({PLAY_BASE + c: v for c, v in card_values(observation, search,
                                                                   seed, bid_model).items()}
                         for seed in seeds)
        choose, judge = valued(choose), valued(judge)
        best, loss = _judge(choose, judge, PLAY_BASE + played)
        return {**base, "kind": "card", "played": played, "master": best - PLAY_BASE,
                "expected": judge[PLAY_BASE + played], "master_expected": judge[best],
                "loss": loss, "marker": _marker(loss), "forced": False}
    if isinstance(action, ChooseTrump):
        search = budget.search(bids=False)
        choose, judge = ({TRUMP_BASE + s: v for s, v in trump_values(observation, search,
                                                                     seed, bid_model).items()}
                         for seed in seeds)
        chosen = TRUMP_BASE + action.suit.index
        choose, judge = valued(choose), valued(judge)
        best, loss = _judge(choose, judge, chosen)
        return {**base, "kind": "trump", "played": chosen - TRUMP_BASE,
                "master": best - TRUMP_BASE, "expected": judge[chosen],
                "master_expected": judge[best], "loss": loss, "marker": _marker(loss)}
    raise ValueError(f"cannot analyse {action!r}")


@dataclass(slots=True)
class Slice:
    """Decisions ``start`` … ``start + len(decisions) - 1`` of ``total``."""

    start: int
    total: int
    decisions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.start + len(self.decisions) >= self.total


def analyse_slice(record: GameRecord, seats: Sequence[int], budget: AnalysisBudget,
                  start: int = 0, max_seconds: float | None = None,
                  prior: Scorer | None = None) -> Slice:
    """Analyse the decisions of ``seats`` from number ``start`` on.

    With ``max_seconds`` the slice stops after the first decision that ends
    past that time (at least one decision is analysed), so a worker can take
    live work in between; without it the slice runs to the end of the game.
    The results are the same however the game is sliced.
    """
    began = time.perf_counter()
    result = Slice(start, record.decisions_of(record.check_seats(seats)))
    for point in decision_points(record, seats, start):
        decision = analyse_decision(point.observation, point.action, budget, prior)
        result.decisions.append({"n": point.number, "step": point.step, **decision})
        if max_seconds is not None and time.perf_counter() - began >= max_seconds:
            break
    return result


def analyse_game(record: GameRecord, seats: Sequence[int] | None = None,
                 budget: AnalysisBudget | None = None,
                 prior: Scorer | None = None) -> dict[str, Any]:
    """The whole analysis of ``seats`` (default: every seat) in one go (`build_report`)."""
    budget = budget or AnalysisBudget()
    chosen = record.check_seats(range(record.num_players) if seats is None else seats)
    decisions = analyse_slice(record, chosen, budget, prior=prior).decisions
    return build_report(record, chosen, decisions, budget)


def build_report(record: GameRecord, seats: Sequence[int], decisions: list[dict[str, Any]],
                 budget: AnalysisBudget) -> dict[str, Any]:
    """The per-seat report of analysed ``decisions`` (as `analyse_slice` gives them).

    Each seat: ``rounds`` (bid, master's bid, their expected scores, the actual
    tricks and points, the cards with their losses and markers) and
    ``summary`` (expected points lost in bidding and in play, mistakes,
    blunders, expected and actual totals).
    """
    game = record.new_game()
    for seat, action in record.actions:
        game.apply(seat, action)
    history = {r.round_number: r for r in game.round_history}
    out = []
    for seat in seats:
        rounds: dict[int, dict[str, Any]] = {}
        for d in decisions:
            if d["seat"] != seat:
                continue
            row = rounds.setdefault(d["round"], {"round": d["round"], "cards": [], "trump": None})
            if d["kind"] == "bid":
                row["bid"] = d
            elif d["kind"] == "trump":
                row["trump"] = d
            else:
                row["cards"].append(d)
        seat_rounds = []
        for number in sorted(rounds):
            row = rounds[number]
            bid = row.get("bid")
            result = history.get(number)
            bid_loss = (bid["loss"] if bid else 0.0) + (row["trump"]["loss"] if row["trump"]
                                                       else 0.0)
            seat_rounds.append({
                "round": number,
                "bid": bid["played"] if bid else None,
                "master_bid": bid["master"] if bid else None,
                "expected": bid["expected"] if bid else None,
                "master_expected": bid["master_expected"] if bid else None,
                "bid_loss": bid_loss,
                "bid_marker": _marker(bid_loss),
                "tricks": result.tricks[seat] if result else None,
                "points": result.score_changes[seat] if result else None,
                "trump": row["trump"],
                "play_loss": sum(c["loss"] for c in row["cards"]),
                "cards": row["cards"],
            })
        cards = [c for r in seat_rounds for c in r["cards"]]
        summary = {
            "bidding_loss": round(sum(r["bid_loss"] for r in seat_rounds), 2),
            "play_loss": round(sum(r["play_loss"] for r in seat_rounds), 2),
            "mistakes": sum(1 for c in cards if c["marker"] == "mistake")
            + sum(1 for r in seat_rounds if r["bid_marker"] == "mistake"),
            "blunders": sum(1 for c in cards if c["marker"] == "blunder")
            + sum(1 for r in seat_rounds if r["bid_marker"] == "blunder"),
            "expected_total": round(sum(r["expected"] or 0.0 for r in seat_rounds), 2),
            "actual_total": sum(r["points"] or 0 for r in seat_rounds),
        }
        player = next((p for p in record.players if p.get("seat") == seat), None)
        out.append({"seat": seat, "name": player.get("name") if player else f"Seat {seat + 1}",
                    "judge": JUDGE_VERSION, "rounds": seat_rounds, "summary": summary})
    return {"game_id": record.game_id, "num_players": record.num_players,
            "worlds": budget.worlds, "seed": ANALYSIS_SEED,
            "thresholds": {"mistake": MISTAKE, "blunder": BLUNDER}, "seats": out}


__all__ = ["ANALYSIS_SEED", "BLUNDER", "JUDGE_BUDGET", "JUDGE_VERSION", "MISTAKE", "AnalysisBudget",
           "DecisionPoint", "GameRecord", "Slice", "analyse_decision", "analyse_game",
           "analyse_slice", "build_report", "by_current_judge", "decision_points",
           "judge_settings"]
