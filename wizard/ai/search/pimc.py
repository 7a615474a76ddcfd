"""The master bot: determinized search (PIMC) over sampled worlds.

For a decision, `Budget.worlds` deals of the hidden cards are sampled once,
consistent with what the seat knows (`wizard.ai.search.worlds`: hand sizes, played
cards, the trump card, revealed voids). Every candidate is then tried in every
one of those same worlds and the rest of the **current round** is played on
`GameCore` with the heuristic for every seat (`wizard.ai.search.rollout`); a candidate
is worth the seat's mean round points (bid made or missed), not its tricks.

- cards: each legal card;
- bids: each legal bid (within ``Budget.bid_window`` of the heuristic's
  estimate); the rollout then plays the hand to that bid, so a bid's value
  comes with the simulated distribution of the tricks taken;
- trump (after a turned wizard, with ``wizard_trump_dealer_chooses``): each suit.

The budget is a number of worlds, never a time: the same observation, budget
and seed give the same values and the same move on any machine. The worlds'
generator is seeded from ``seed`` and the position (round, phase, cards
played, bids made, seat), so an agent needs no state between moves.

Public API (also for game analysis, which reuses the same worlds and values):

- ``bid_values(observation, budget, seed) -> {bid: BidValue}``: expected round
  score and trick distribution of each bid (phase bidding);
- ``card_values(observation, budget, seed) -> {card id: expected round points}``
  (phase playing);
- ``trump_values(observation, budget, seed) -> {suit index: expected round points}``;
- ``action_values(observation, budget, seed) -> {action index: value}``: whichever
  of the three the phase asks for, keyed like `wizard.engine.action_index`;
- ``blend(values, prior, weight)``: values averaged with a second opinion's;
- `SearchAgent` (``make_agent("search")``): plays the best value, blended with
  OI's scores for the master (`wizard.ai.search.prior`).

>>> from wizard.engine import WizardGame
>>> game = WizardGame(4, seed=2)
>>> obs = game.observation(game.current_player)
>>> values = bid_values(obs, Budget(worlds=4), seed=1)
>>> sorted(values) == [a.value for a in obs.legal_actions]
True
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from wizard.engine import ACTIONS_BY_INDEX, Action, Bid, GameCore, Observation, Phase, action_index
from wizard.engine.rules import round_score

from ..agents.base import Agent, require_turn
from ..agents.heuristic import HeuristicAgent, expected_tricks
from ..oi.agent import ProbabilityNet
from .budget import (
    DEFAULT_BUDGET,
    GAME_REFINE_GATE,
    HEURISTIC_TABLE,
    OI_ROLLOUT_PRIOR_WEIGHT,
    PRIOR_WEIGHT,
    REFINE_ERROR,
    REFINE_MIN_ESS,
    TABLE_PRIOR_WEIGHT,
    Budget,
    opponents_gate,
)
from .inference import BidInference, Evidence
from .lockstep import heuristic_bids, play_out
from .oi_rollout import oi_values
from .plays import PlayInference
from .refine import refined_deals
from .rollout import rollout_score
from .table import PriorWeight, weight_at
from .worlds import sample_worlds, world_core

PLAY_BASE = 21
TRUMP_BASE = 81
#: OI's overall and immediate networks, playing the other seats in a master's rollouts
OINetworks = tuple[ProbabilityNet, ProbabilityNet]


class Scorer(Protocol):
    """A second opinion on the candidates: expected round points per action index."""

    def action_scores(self, observation: Observation) -> dict[int, float]: ...


@dataclass(frozen=True, slots=True)
class BidValue:
    """A bid's expected round score and ``tricks[k]``: the share of worlds where we took k."""

    bid: int
    value: float
    tricks: tuple[float, ...]


def _rng(observation: Observation, seed: int, what: str) -> random.Random:
    key = (observation.round_number, observation.phase.value, len(observation.played_cards),
           sum(observation.has_bid), observation.player)
    return random.Random(f"search:{what}:{seed}:{key}")


def _worlds(observation: Observation, budget: Budget, seed: int, what: str,
            bid_model: ProbabilityNet | None) -> list[GameCore]:
    require_turn(observation)
    weigh = None
    if (budget.refine and budget.inference is not None
            and (GAME_REFINE_GATE if budget.whole_game else TABLE_PRIOR_WEIGHT).weight(
                observation, seed) <= HEURISTIC_TABLE):
        deals = refined_deals(observation, budget.worlds, _rng(observation, seed, what),
                              bid_error=REFINE_ERROR, play_error=REFINE_ERROR,
                              oversample=budget.oversample, min_ess=REFINE_MIN_ESS,
                              steps=budget.refine)
        return [world_core(observation, deal) for deal in deals]
    if budget.inference is not None and bid_model is not None:
        plays = PlayInference(budget.plays) if budget.plays is not None else None
        weigh = Evidence(BidInference(bid_model, budget.inference), plays,
                         budget.min_ess).log_weights
    return sample_worlds(observation, budget.worlds, _rng(observation, seed, what),
                         bid_spread=budget.bid_spread, weigh=weigh,
                         oversample=budget.oversample)


def _require_phase(observation: Observation, phase: Phase) -> None:
    if observation.phase is not phase:
        raise ValueError(f"expected phase {phase.value}, the observation is in "
                         f"{observation.phase.value}")


def _searched_bids(observation: Observation, budget: Budget) -> list[int]:
    """The legal bids within ``budget.bid_window`` of the heuristic's estimate (all: none)."""
    legal = [a.value for a in observation.legal_actions if isinstance(a, Bid)]
    if budget.bid_window is None:
        return legal
    trump = observation.trump_suit.index if observation.trump_suit else -1
    estimate = expected_tricks([c.id for c in observation.hand], trump, observation.num_players)
    return [b for b in legal if abs(b - estimate) <= budget.bid_window + 0.5] or legal


def bid_values(observation: Observation, budget: Budget = DEFAULT_BUDGET,
               seed: int = 0, bid_model: ProbabilityNet | None = None) -> dict[int, BidValue]:
    """Each searched legal bid's expected round score and trick distribution.

    Raises `ValueError` unless it is the observer's turn to bid.
    """
    _require_phase(observation, Phase.BIDDING)
    worlds = _worlds(observation, budget, seed, "bid", bid_model)
    return _bid_values(observation, worlds, _searched_bids(observation, budget))


def _bid_values(observation: Observation, worlds: list[GameCore],
                bids: list[int]) -> dict[int, BidValue]:
    me = observation.player
    assert me is not None
    _, won = play_out(worlds, bids, me, heuristic_bids)  # every rollout in lockstep
    total = len(worlds)
    values: dict[int, BidValue] = {}
    for j, bid in enumerate(bids):
        counts = np.bincount(won[j * total:(j + 1) * total],
                             minlength=observation.round_number + 1).tolist()
        value = sum(round_score(bid, t) * k for t, k in enumerate(counts)) / total
        values[bid] = BidValue(bid, value, tuple(k / total for k in counts))
    return values


def card_values(observation: Observation, budget: Budget = DEFAULT_BUDGET,
                seed: int = 0, bid_model: ProbabilityNet | None = None) -> dict[int, float]:
    """Each legal card's expected round points for the observer.

    Raises `ValueError` unless it is the observer's turn to play a card.
    """
    _require_phase(observation, Phase.PLAYING)
    worlds = _worlds(observation, budget, seed, "card", bid_model)
    return _card_values(observation, worlds)


def _card_values(observation: Observation, worlds: list[GameCore]) -> dict[int, float]:
    me = observation.player
    assert me is not None
    cards = [action_index(a) - PLAY_BASE for a in observation.legal_actions]
    bids, won = play_out(worlds, [PLAY_BASE + c for c in cards], me, heuristic_bids)
    points = [round_score(bid, tricks)
              for bid, tricks in zip(bids.tolist(), won.tolist(), strict=True)]
    k = len(worlds)
    return {card: sum(points[j * k:(j + 1) * k]) / k for j, card in enumerate(cards)}


def trump_values(observation: Observation, budget: Budget = DEFAULT_BUDGET,
                 seed: int = 0, bid_model: ProbabilityNet | None = None) -> dict[int, float]:
    """Each trump suit's (index 0-3) expected round points, the round bid and played out.

    Raises `ValueError` unless it is the observer's turn to choose trump.
    """
    _require_phase(observation, Phase.CHOOSING_TRUMP)
    worlds = _worlds(observation, budget, seed, "trump", bid_model)
    me = observation.player
    assert me is not None
    values: dict[int, float] = {}
    for suit in range(4):
        total = 0
        for world in worlds:
            core = world.copy()
            core.apply(TRUMP_BASE + suit)
            total += rollout_score(core, me)[0]
        values[suit] = total / len(worlds)
    return values


def action_values(observation: Observation, budget: Budget = DEFAULT_BUDGET,
                  seed: int = 0, bid_model: ProbabilityNet | None = None) -> dict[int, float]:
    """The values of the phase's candidates, keyed by action index (see the module docstring).

    ``bid_model`` (OI's overall network) weighs the worlds when ``budget.inference`` is set.
    """
    if observation.phase is Phase.BIDDING:
        values = bid_values(observation, budget, seed, bid_model)
        return {b: v.value for b, v in values.items()}
    if observation.phase is Phase.PLAYING:
        cards = card_values(observation, budget, seed, bid_model)
        return {PLAY_BASE + c: v for c, v in cards.items()}
    if observation.phase is Phase.CHOOSING_TRUMP:
        suits = trump_values(observation, budget, seed, bid_model)
        return {TRUMP_BASE + s: v for s, v in suits.items()}
    raise ValueError(f"nothing to decide in phase {observation.phase.value}")


def master_values(observation: Observation, budget: Budget, seed: int, prior: Scorer | None,
                  weight: PriorWeight, bid_model: ProbabilityNet | None = None,
                  opponents: OINetworks | None = None,
                  oi_weight: float = OI_ROLLOUT_PRIOR_WEIGHT) -> dict[int, float]:
    """The values a master picks from: `action_values`, blended with ``prior``'s scores at
    ``weight``; with ``opponents`` (OI's overall and immediate networks) and
    `Budget.oi_worlds`, where `opponents_gate` says the table plays unlike the heuristic,
    the bids and cards are played out with OI for the other seats instead
    (`wizard.ai.search.oi_rollout`) and blended at ``oi_weight`` (`OI_ROLLOUT_PRIOR_WEIGHT`);
    with `Budget.oi_mix`, the heuristic's rollouts in the same worlds weigh that share of
    those values first (two models of the other seats, master v10).
    Raises `ValueError` unless it is the observer's turn to act.
    """
    if (opponents is not None and budget.oi_worlds
            and observation.phase in (Phase.BIDDING, Phase.PLAYING)
            and opponents_gate(observation)):
        bidding = observation.phase is Phase.BIDDING
        worlds = _worlds(observation, budget, seed, "bid" if bidding else "card", bid_model)
        bids = _searched_bids(observation, budget) if bidding else []
        candidates = bids if bidding else [action_index(a) for a in observation.legal_actions]
        values = oi_values(observation, worlds[:budget.oi_worlds], candidates, *opponents)
        if budget.oi_mix:  # the heuristic's rollouts in the same worlds: a second model
            heuristic = ({b: v.value for b, v in _bid_values(observation, worlds, bids).items()}
                         if bidding else {PLAY_BASE + c: v for c, v in
                                          _card_values(observation, worlds).items()})
            values = blend(values, heuristic, budget.oi_mix)
        share = oi_weight
    else:
        values = action_values(observation, budget, seed, bid_model)
        share = weight_at(weight, observation, seed) if prior is not None else 0.0
    if prior is None or share == 0.0:
        return values
    return blend(values, prior.action_scores(observation), share)


def pick(values: dict[int, float], preferred: int, temperature: float = 0.0,
         uniform: float = 0.0) -> int:
    """The action index to play from ``values``.

    ``temperature`` 0 (points) takes the best value; ties go to ``preferred``
    (the heuristic's choice) and then the lowest index. Above 0 it samples
    ``exp(value / temperature)`` with the draw ``uniform`` in [0, 1).

    >>> pick({3: 10.0, 4: 10.0, 5: -5.0}, preferred=4)
    4
    """
    if not values:
        raise ValueError("no candidate to pick from")
    if temperature <= 0.0:
        return max(values, key=lambda i: (values[i], i == preferred, -i))
    top = max(values.values())
    indices = sorted(values)
    weights = [math.exp((values[i] - top) / temperature) for i in indices]
    target = uniform * sum(weights)
    for index, weight in zip(indices, weights, strict=True):
        target -= weight
        if target < 0.0:
            return index
    return indices[-1]


def blend(values: dict[int, float], prior: dict[int, float],
          weight: float = PRIOR_WEIGHT) -> dict[int, float]:
    """``values`` moved towards ``prior`` by ``weight`` (keys of ``values``; missing: unchanged).

    Raises `ValueError` for a weight outside 0–1.

    >>> blend({3: 10.0, 4: 30.0}, {3: 30.0, 4: 10.0, 5: 0.0}, 0.25)
    {3: 15.0, 4: 25.0}
    """
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"the prior weight must be within 0-1, got {weight!r}")
    return {a: (1.0 - weight) * v + weight * prior.get(a, v) for a, v in values.items()}


class SearchAgent(Agent):
    """Plays the candidate with the best searched value (`action_values`).

    One legal action is played without searching. ``seed`` (and `reset`)
    seeds the worlds together with the position, so a game replays exactly.
    With a ``prior`` (the master bot: OI, `wizard.ai.search.prior`) the values are
    `blend`-ed with its scores by ``prior_weight`` (a number, or a `TableWeight` read
    at each decision); ``bid_model`` (OI's overall
    network) weighs the worlds when the budget asks for ``inference``; ``opponents`` (OI's
    networks) play the other seats where the budget asks for it (`master_values`), their
    values blended with the prior's at ``oi_weight``.

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=2)
    >>> obs = game.observation(game.current_player)
    >>> SearchAgent(Budget(worlds=2), seed=1).act(obs) in obs.legal_actions
    True
    """

    name = "search"

    def __init__(self, budget: Budget = DEFAULT_BUDGET, seed: int | None = None, *,
                 prior: Scorer | None = None, prior_weight: PriorWeight = PRIOR_WEIGHT,
                 bid_model: ProbabilityNet | None = None,
                 opponents: OINetworks | None = None,
                 oi_weight: float = OI_ROLLOUT_PRIOR_WEIGHT) -> None:
        for what, number in (("prior weight", prior_weight), ("OI rollouts' weight", oi_weight)):
            if isinstance(number, float | int) and not 0.0 <= number <= 1.0:
                raise ValueError(f"the {what} must be within 0-1, got {number!r}")
        self.budget = budget
        self.seed = 0 if seed is None else seed
        self.prior = prior
        self.prior_weight = prior_weight
        self.bid_model = bid_model
        self.opponents = opponents
        self.oi_weight = oi_weight
        self._heuristic = HeuristicAgent()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed

    def action_scores(self, observation: Observation) -> dict[int, float]:
        """The values it picks from: searched, blended with its prior's (a `Scorer` itself,
        so the master's values can label training data, `wizard.training.teacher`)."""
        return master_values(observation, self.budget, self.seed, self.prior,
                             self.prior_weight, self.bid_model, self.opponents, self.oi_weight)

    def act(self, observation: Observation) -> Action:
        require_turn(observation)
        if len(observation.legal_actions) == 1:
            return observation.legal_actions[0]
        values = self.action_scores(observation)
        preferred = action_index(self._heuristic.act(observation))
        return ACTIONS_BY_INDEX[pick(values, preferred)]


__all__ = ["BidValue", "OINetworks", "Scorer", "SearchAgent", "action_values", "bid_values",
           "blend", "card_values", "master_values", "pick", "trump_values"]
