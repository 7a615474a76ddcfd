"""`LevelAgent` (``make_agent("bot:<level>")``): a bot level as the server plays it.

One decision of a bot with `BotSettings` ``bot`` at move ``move_number``:

1. a single legal action is played at once;
2. the level's brain now (`brain_for`; the search when the model file cannot be
   loaded, with a logged warning);
3. the draws of `wizard.ai.levels.strength.move_draw` from ``(bot.seed, move_number)``:
   this move's strength (``bot.strength`` ±5 for every brain but the learned
   policy, which plays at the game's strength as the pool's batches always
   have), a random legal move with its chance, else the uniform draw for the
   brain's softmax;
4. the brain decides at that strength:

   - ``heuristic`` (easy, medium): bids are drawn from a softmax over
     ``-10 × |bid − estimate|`` (the points a trick off costs) at the strength's
     value temperature, so weaker bots bid noisily; cards are the heuristic's;
   - ``search`` (master; hard without a model): `wizard.ai.search` with the
     strength's worlds, its values sampled at the value temperature; master's
     values are first averaged with OI's (`wizard.ai.search.prior`; the plain search
     when the OI networks cannot be loaded; OI's weight 0.5, from bot version 6 0.8:
     `master_prior_weight`), and from bot version 2 its worlds are weighted by the other
     seats' bids (`master_budget`);
   - ``model`` (hard when ``models/default-v3.onnx``, `HARD_POLICY`, exists): the
     learned policy of the bot's version (`policy_for`: ``models/default-v1.onnx`` up
     to version 3),
     sampled at the strength's policy temperature by `choose_rows`, the code
     the pool's workers choose a batch with;
   - any other name in `BRAINS` (the hook for OI at medium): that registered
     agent's own move, built with the bot's seed; random moves still apply.

So `wizard calibrate`, which plays `LevelAgent`, measures the bot the server
serves (`tests/ai/test_strength.py` checks every path's choice). In
`wizard evaluate` there are no settings from a server: `reset` draws them from
the seed (strength within the level's range) and the move number is counted
from the observation (`moves_before`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import structlog

from wizard.engine import ACTIONS_BY_INDEX, Action, Bid, Observation, Phase, action_index

from ..agents import Agent, HeuristicAgent
from ..agents.base import require_turn
from ..agents.heuristic import expected_tricks
from ..encoding import ActionSpace, encode_observation
from ..oi import OIAgent, make_oi_agent
from ..policy import OnnxPolicy, PolicyError, models_dir
from ..search import Budget, action_values, master_budget, master_prior_weight, pick
from ..search.prior import blended_values, load_prior
from .settings import BRAINS, HARD_POLICY, BotLevel, BotSettings, policy_for
from .strength import POLICY_BRAIN, MoveDraw, choose_rows, move_draw, varies_per_move

#: builds a brain that is an agent of its own (``make_agent``'s signature)
BrainFactory = Callable[..., Agent]

HARD_MODEL_FILE = f"{HARD_POLICY}.onnx"


def _builtin_brain(name: str, seed: int | None = None) -> Agent:
    """The brains a level agent builds without a registry: OI."""
    if name == "oi":
        return make_oi_agent(seed=seed)
    raise ValueError(f"unknown brain {name!r}: build the level with make_agent to use "
                     "a registered agent")
log = structlog.get_logger(__name__)


def moves_before(observation: Observation) -> int:
    """The number of moves made in the game before this observation (bids and cards).

    >>> from wizard.engine import WizardGame
    >>> moves_before(WizardGame(4, seed=1).observation(0))
    0
    """
    n = observation.num_players
    earlier = sum(n + n * r for r in range(1, observation.round_number))
    return earlier + sum(observation.has_bid) + len(observation.played_cards)


def brain_for(level: BotLevel) -> str:
    """The brain a level plays with now: ``heuristic``, ``search``, ``model`` or an agent name."""
    brain = BRAINS[level]
    if brain == "model_or_search":
        return "model" if (models_dir() / HARD_MODEL_FILE).is_file() else "search"
    return brain


class LevelAgent(Agent):
    """A bot of one level; see the module docstring. Raises `ValueError` for an unknown level.

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=2)
    >>> obs = game.observation(game.current_player)
    >>> LevelAgent("easy", seed=1).act(obs) in obs.legal_actions
    True
    """

    def __init__(self, level: str | BotLevel, seed: int | None = None,
                 make_brain: BrainFactory | None = None) -> None:
        """``make_brain(name, seed=...)`` builds a brain that is an agent of its own (a
        `BRAINS` entry other than the heuristic, the search and the policy);
        ``make_agent("bot:<level>")`` passes itself, so any registered agent can be a
        brain; without it only ``oi`` can."""
        self.level = level if isinstance(level, BotLevel) else BotLevel.parse(level)
        self._make_brain = make_brain or _builtin_brain
        self.name = f"bot:{self.level.value}"
        self._heuristic = HeuristicAgent()
        self._policies: dict[str, OnnxPolicy | None] = {}  # by file stem; None: unusable
        self._others: dict[str, Agent] = {}
        self._prior: OIAgent | None = None
        self._prior_error: str | None = None
        self.bot = self._draw(seed)

    def _draw(self, seed: int | None) -> BotSettings:
        return BotSettings.draw(self.level, random.Random(f"level:{self.level.value}:{seed}"))

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.bot = self._draw(seed)

    def act(self, observation: Observation) -> Action:
        return self.act_as_bot(observation, self.bot, moves_before(observation))[0]

    def act_as_bot(self, observation: Observation, bot: BotSettings,
                   move_number: int) -> tuple[Action, str]:
        """The move of ``bot`` at ``move_number`` and what chose it (``random`` or a brain)."""
        require_turn(observation)
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0], self.name
        brain = self._brain(bot)
        draw = move_draw(bot.strength, bot.seed, move_number, len(legal),
                         varies=varies_per_move(brain))
        if draw.random_pick >= 0:
            return legal[draw.random_pick], "random"
        if brain == POLICY_BRAIN:
            try:
                return self._model_act(observation, bot, draw), f"{self.name}:model"
            except PolicyError as exc:  # outputs that do not fit: this move searches
                self._model_unavailable(policy_for(bot.version), exc)
                brain = "search"
        if brain not in ("search", "heuristic"):  # a registered agent, e.g. OI for medium
            other = self._others.get(brain)
            if other is None:
                other = self._others[brain] = self._make_brain(brain, seed=bot.seed)
            return other.act(observation), f"{self.name}:{brain}"
        preferred = action_index(self._heuristic.act(observation))
        if brain == "search":
            if self.level is BotLevel.MASTER:
                values = blended_values(observation, master_budget(draw.worlds, bot.version),
                                        bot.seed, self._master_prior(),
                                        master_prior_weight(bot.version))
            else:
                values = action_values(observation, Budget(worlds=draw.worlds), seed=bot.seed)
            chosen = pick(values, preferred, draw.value_temperature, draw.uniform)
            return ACTIONS_BY_INDEX[chosen], f"{self.name}:search"
        if observation.phase is Phase.BIDDING:
            trump = observation.trump_suit.index if observation.trump_suit else -1
            estimate = expected_tricks([c.id for c in observation.hand], trump,
                                       observation.num_players)
            values = {action_index(a): -10.0 * abs(a.value - estimate)
                      for a in legal if isinstance(a, Bid)}
            chosen = pick(values, preferred, draw.value_temperature, draw.uniform)
            return ACTIONS_BY_INDEX[chosen], f"{self.name}:heuristic"
        return ACTIONS_BY_INDEX[preferred], f"{self.name}:heuristic"

    def _brain(self, bot: BotSettings) -> str:
        """`brain_for` the level, with the bot's policy loaded; the search when it cannot be."""
        brain = brain_for(self.level)
        if brain != POLICY_BRAIN:
            return brain
        return "search" if self._policy(policy_for(bot.version)) is None else brain

    def _policy(self, name: str) -> OnnxPolicy | None:
        """``models/<name>.onnx``, loaded once (``None`` once it proved unusable)."""
        if name not in self._policies:
            try:
                self._policies[name] = OnnxPolicy(models_dir() / f"{name}.onnx")
            except PolicyError as exc:
                self._model_unavailable(name, exc)
        return self._policies[name]

    def _model_unavailable(self, name: str, exc: PolicyError) -> None:
        """An unusable model file: the search from now on, said once."""
        self._policies[name] = None
        log.warning("level_model_unavailable_using_search", level=self.level.value,
                    policy=name, error=str(exc))

    def _master_prior(self) -> OIAgent | None:
        """OI for master's `blend` and inference, loaded once (``None``, the plain search,
        without the networks)."""
        if self._prior is None and self._prior_error is None:
            self._prior = load_prior()
            if self._prior is None:
                self._prior_error = "the OI networks are unavailable"
        return self._prior

    def _model_act(self, observation: Observation, bot: BotSettings, draw: MoveDraw) -> Action:
        policy = self._policies.get(policy_for(bot.version))
        assert policy is not None  # `_brain` loaded it
        mask = ActionSpace.mask(observation)[None, :]
        # a level plays the policy's cards by their probabilities (`BOT_VERSION`)
        logits = policy.logits(encode_observation(observation)[None, :], mask, lookahead=0.0)
        index = choose_rows(logits, mask, np.array([draw.temperature]), np.array([draw.uniform]))
        return ActionSpace.action(int(index[0]))


__all__ = ["LevelAgent", "brain_for", "moves_before"]
