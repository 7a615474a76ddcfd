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
from dataclasses import dataclass, replace
from typing import Protocol

from wizard.engine import ACTIONS_BY_INDEX, Action, Bid, GameCore, Observation, Phase, action_index
from wizard.engine.rules import round_score

from ..agents.base import Agent, require_turn
from ..agents.heuristic import HeuristicAgent, expected_tricks
from ..oi.agent import ProbabilityNet
from .inference import BID_TEMPERATURE, MIN_ESS, BidInference, Evidence
from .plays import PLAY_ERROR, PlayInference
from .refine import refined_deals
from .rollout import finish_round, rollout_score
from .table import PriorWeight, TableWeight, weight_at
from .worlds import sample_worlds, world_core

PLAY_BASE = 21
TRUMP_BASE = 81
#: the weight of a prior's estimate in `blend` (0: the plain search, 1: the prior alone):
#: master's from bot version 6 (docs/measurements/ai.md#masters-prior-weight-against-oi)
PRIOR_WEIGHT = 0.8
#: master's weight up to bot version 5
EARLIER_PRIOR_WEIGHT = 0.5
#: master's from bot version 7: read from the table, `EARLIER_PRIOR_WEIGHT` where the other
#: seats play like the search's heuristic rollouts, `PRIOR_WEIGHT` where they do not
#: (`wizard.ai.search.table`; docs/measurements/ai.md#reading-the-table)
TABLE_PRIOR_WEIGHT = TableWeight(low=EARLIER_PRIOR_WEIGHT, high=PRIOR_WEIGHT, prior=0.2)
#: master's from bot version 10 (v8): read over the game's finished rounds too, and OI's
#: values at 0.3 where the table reads like the heuristic (docs/measurements/ai.md, section
#: "Trusting the refined search, and reading the table over the game")
GAME_PRIOR_WEIGHT = TableWeight(low=0.3, high=PRIOR_WEIGHT, prior=0.2, game=True)
#: `Budget.refine` applies where OI's weight read from the table (`TABLE_PRIOR_WEIGHT`, with
#: `Budget.whole_game` over the game's finished rounds too) is at most this: the other
#: seats' plays read like the heuristic's
HEURISTIC_TABLE = 0.6
_GAME_GATE = replace(TABLE_PRIOR_WEIGHT, game=True)
#: the heuristic's model of a bid and of a play where the worlds are refined: the share
#: left to other choices (docs/measurements/ai.md#the-hidden-cards-ceiling-and-card-swaps-master-v6)
REFINE_ERROR = 0.05
#: the tempering floor of the refined worlds' starting deals
REFINE_MIN_ESS = 0.03


class Scorer(Protocol):
    """A second opinion on the candidates: expected round points per action index."""

    def action_scores(self, observation: Observation) -> dict[int, float]: ...


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a decision may search: ``worlds`` sampled deals, one rollout per candidate each.

    ``bid_window``: only bids within this many tricks of the heuristic's estimate
    are searched (``None``: every legal bid). ``inference``: the worlds are
    weighted by how likely the other seats' visible bids are under OI's bidding
    at this softmax temperature in points (`wizard.ai.search.inference`; needs
    the OI network passed to `action_values`), chosen among ``worlds ×
    oversample`` candidates; ``None``: uniform worlds. ``plays``: with
    ``inference``, the other seats' card plays weigh the worlds too, under the
    heuristic with this error share (`wizard.ai.search.plays`); ``min_ess``: the
    weights are tempered to keep this share of the candidates as effective
    samples (`wizard.ai.search.inference.temper`). ``refine``: with ``inference``,
    where the table reads like the heuristic (OI's weight at most `HEURISTIC_TABLE`,
    `wizard.ai.search.table`), the worlds are weighed by the heuristic's bids and plays
    instead (`REFINE_ERROR`, tempered to `REFINE_MIN_ESS`) and each walks this many
    card swaps toward the hands that explain them (`wizard.ai.search.refine`); 0: never.
    ``whole_game``: that reading counts the game's finished rounds too.
    ``bid_spread``: the
    older fit of the worlds to the heuristic's trick estimate (measured: no
    gain). Raises `ValueError` for fewer than one world, a negative window, or a
    spread, temperature or oversample that is not positive.
    """

    worlds: int = 32
    bid_window: int | None = 3
    bid_spread: float | None = None
    inference: float | None = None
    oversample: int = 4
    plays: float | None = None
    min_ess: float = MIN_ESS
    refine: int = 0
    whole_game: bool = False

    def __post_init__(self) -> None:
        if type(self.worlds) is not int or self.worlds < 1:
            raise ValueError(f"a search budget needs at least 1 world, got {self.worlds!r}")
        if self.bid_window is not None and self.bid_window < 0:
            raise ValueError(f"bid_window must be >= 0 or None, got {self.bid_window!r}")
        if self.bid_spread is not None and not self.bid_spread > 0.0:
            raise ValueError(f"bid_spread must be > 0 or None, got {self.bid_spread!r}")
        if self.inference is not None and not self.inference > 0.0:
            raise ValueError(f"inference must be > 0 or None, got {self.inference!r}")
        if self.plays is not None and not 0.0 < self.plays < 1.0:
            raise ValueError(f"plays must be within (0, 1) or None, got {self.plays!r}")
        if not 0.0 <= self.min_ess <= 1.0:
            raise ValueError(f"min_ess must be within 0-1, got {self.min_ess!r}")
        if type(self.oversample) is not int or self.oversample < 1:
            raise ValueError(f"oversample must be an integer >= 1, got {self.oversample!r}")
        if type(self.refine) is not int or self.refine < 0:
            raise ValueError(f"refine must be an integer >= 0, got {self.refine!r}")


#: master v7's swaps a world where the table reads like the heuristic (`Budget.refine`;
#: master v6, bot version 8, walked `V6_REFINE_STEPS`)
REFINE_STEPS = 200
V6_REFINE_STEPS = 100


def master_budget(worlds: int, version: int) -> Budget:
    """The master bot's budget at ``worlds`` for a bot of ``version`` (`BotSettings.version`):
    1 searched uniform worlds; 2 weighs them by the bids (τ 5 points); 3 and later by the
    bids and the card plays (error 0.3), chosen among 8 candidates a world, tempered to
    keep a tenth of them effective (docs/measurements/ai.md#play-inference); 8 and later
    refine the worlds by `V6_REFINE_STEPS` card swaps where the table reads like the
    heuristic, 9 and later by `REFINE_STEPS`; from 10 the table is read over the game.

    >>> master_budget(32, 7).refine, master_budget(32, 8).refine, master_budget(32, 9).refine
    (0, 100, 200)
    >>> master_budget(32, 9).whole_game, master_budget(32, 10).whole_game
    (False, True)
    """
    if version <= 1:
        return Budget(worlds=worlds)
    if version == 2:
        return Budget(worlds=worlds, inference=BID_TEMPERATURE)
    return Budget(worlds=worlds, inference=BID_TEMPERATURE, plays=PLAY_ERROR, oversample=8,
                  min_ess=0.1, refine=REFINE_STEPS if version >= 9
                  else V6_REFINE_STEPS if version == 8 else 0, whole_game=version >= 10)


#: master v3's to v5's search (bot versions 3-7): 32 worlds weighted by the other seats'
#: bids and plays
V3_BUDGET = master_budget(32, 3)
#: master v6's search (bot version 8): v3's, refined by 100 swaps at tables that read like
#: the heuristic
V6_BUDGET = master_budget(32, 8)
#: master v7's search (bot version 9): v6's with 200 swaps a world
V7_BUDGET = master_budget(32, 9)
#: the master's search (v8, bot version 10): v7's, the swaps' gate read over the game
DEFAULT_BUDGET = master_budget(32, 10)


def master_prior_weight(version: int) -> PriorWeight:
    """The weight of OI's values in a master bot's of ``version`` (`BotSettings.version`):
    `EARLIER_PRIOR_WEIGHT` up to 5, `PRIOR_WEIGHT` at 6, `TABLE_PRIOR_WEIGHT` from 7,
    `GAME_PRIOR_WEIGHT` from 10.

    >>> master_prior_weight(5), master_prior_weight(6)
    (0.5, 0.8)
    >>> master_prior_weight(9) == TABLE_PRIOR_WEIGHT, master_prior_weight(10).game
    (True, True)
    """
    if version <= 5:
        return EARLIER_PRIOR_WEIGHT
    if version == 6:
        return PRIOR_WEIGHT
    return TABLE_PRIOR_WEIGHT if version <= 9 else GAME_PRIOR_WEIGHT


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
            and (_GAME_GATE if budget.whole_game else TABLE_PRIOR_WEIGHT).weight(
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


def bid_values(observation: Observation, budget: Budget = DEFAULT_BUDGET,
               seed: int = 0, bid_model: ProbabilityNet | None = None) -> dict[int, BidValue]:
    """Each searched legal bid's expected round score and trick distribution.

    Raises `ValueError` unless it is the observer's turn to bid.
    """
    _require_phase(observation, Phase.BIDDING)
    worlds = _worlds(observation, budget, seed, "bid", bid_model)
    me = observation.player
    assert me is not None
    legal = [a.value for a in observation.legal_actions if isinstance(a, Bid)]
    if budget.bid_window is not None:
        trump = observation.trump_suit.index if observation.trump_suit else -1
        estimate = expected_tricks([c.id for c in observation.hand], trump,
                                   observation.num_players)
        near = [b for b in legal if abs(b - estimate) <= budget.bid_window + 0.5]
        legal = near or legal
    values: dict[int, BidValue] = {}
    for bid in legal:
        counts = [0] * (observation.round_number + 1)
        for world in worlds:
            core = world.copy()
            core.apply(bid)
            finish_round(core)
            counts[core.last_tricks[me]] += 1
        total = len(worlds)
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
    me = observation.player
    assert me is not None
    cards = [action_index(a) - PLAY_BASE for a in observation.legal_actions]
    values: dict[int, float] = {}
    for card in cards:
        total = 0
        for world in worlds:
            core = world.copy()
            core.apply(PLAY_BASE + card)
            total += rollout_score(core, me)[0]
        values[card] = total / len(worlds)
    return values


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
    network) weighs the worlds when the budget asks for ``inference``.

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=2)
    >>> obs = game.observation(game.current_player)
    >>> SearchAgent(Budget(worlds=2), seed=1).act(obs) in obs.legal_actions
    True
    """

    name = "search"

    def __init__(self, budget: Budget = DEFAULT_BUDGET, seed: int | None = None, *,
                 prior: Scorer | None = None, prior_weight: PriorWeight = PRIOR_WEIGHT,
                 bid_model: ProbabilityNet | None = None) -> None:
        if isinstance(prior_weight, float | int) and not 0.0 <= prior_weight <= 1.0:
            raise ValueError(f"the prior weight must be within 0-1, got {prior_weight!r}")
        self.budget = budget
        self.seed = 0 if seed is None else seed
        self.prior = prior
        self.prior_weight = prior_weight
        self.bid_model = bid_model
        self._heuristic = HeuristicAgent()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed

    def action_scores(self, observation: Observation) -> dict[int, float]:
        """The values it picks from: searched, blended with its prior's (a `Scorer` itself,
        so the master's values can label training data, `wizard.training.teacher`)."""
        values = action_values(observation, self.budget, self.seed, self.bid_model)
        if self.prior is not None:
            values = blend(values, self.prior.action_scores(observation),
                           weight_at(self.prior_weight, observation, self.seed))
        return values

    def act(self, observation: Observation) -> Action:
        require_turn(observation)
        if len(observation.legal_actions) == 1:
            return observation.legal_actions[0]
        values = self.action_scores(observation)
        preferred = action_index(self._heuristic.act(observation))
        return ACTIONS_BY_INDEX[pick(values, preferred)]


__all__ = ["DEFAULT_BUDGET", "EARLIER_PRIOR_WEIGHT", "GAME_PRIOR_WEIGHT", "HEURISTIC_TABLE",
           "PRIOR_WEIGHT", "REFINE_ERROR", "REFINE_MIN_ESS", "REFINE_STEPS", "TABLE_PRIOR_WEIGHT",
           "V3_BUDGET", "V6_BUDGET", "V6_REFINE_STEPS", "V7_BUDGET",
           "BidValue", "Budget", "Scorer", "SearchAgent", "action_values", "bid_values", "blend",
           "card_values", "master_budget", "master_prior_weight", "pick", "trump_values"]
