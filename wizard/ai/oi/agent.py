"""The OI strategy (seed ``002``): per-card win probabilities, expected-points bidding.

Two small networks estimate, for each card in hand, the probability that it
wins a trick later in the round (the *overall* value p_O) and that it wins the
current trick (the *immediate* value p_I); cases whose answer is certain are
decided by `wizard.ai.oi.features` and never asked. From independent per-card
probabilities the distribution of the number of tricks is computed exactly by
dynamic programming (`trick_distributions`, a Poisson-binomial). Then:

- **bid**: the legal bid with the highest expected score under Wizard scoring;
- **play**: the legal card ``c`` maximising
  ``p_I(c)·P(w−1 from the rest) + (1−p_I(c))·P(w from the rest)``, ``w`` the
  tricks still wanted (ties, e.g. when the bid is already missed, go to the
  card with the higher expected score);
- **choose trump** (option ``wizard_trump_dealer_chooses``): the suit whose
  hand has the highest expected score at its best bid.

Each decision makes at most one batched call per network over the cards in
hand (all four trump hypotheses of a trump choice are one batch).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from wizard.engine import Action, Bid, ChooseTrump, Observation, Phase, PlayCard, round_score
from wizard.engine.actions import BID_ACTIONS, PLAY_ACTIONS, TRUMP_ACTIONS

from ..agents.base import Agent, require_turn
from ..policy import PolicyError, models_dir, read_model_card
from .features import (
    OI_FEATURE_SIZE,
    OI_FEATURE_VERSION,
    OI_FEATURE_VERSIONS,
    Situation,
    card_features,
    immediate_exact,
    overall_exact,
    situation_of,
)

PLAY_BASE = len(BID_ACTIONS)  # action index of the first card (`action_index`)
TRUMP_BASE = PLAY_BASE + len(PLAY_ACTIONS)
OVERALL_NAME = "oi_overall"
IMMEDIATE_NAME = "oi_immediate"
#: the model card ``kind`` of each network (a card without ``kind`` is an action policy)
OVERALL_KIND = "oi_overall"
IMMEDIATE_KIND = "oi_immediate"
INPUT_NAME = "features"
OUTPUT_NAME = "probability"
#: how a card is chosen: the seed's P(make the bid exactly), or the expected round score
PLAY_OBJECTIVES = ("make", "score")

Floats = npt.NDArray[np.float64]
#: a network: feature rows ``(k, OI_FEATURE_SIZE)`` -> probabilities ``(k,)``
ProbabilityNet = Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]]


def trick_distributions(probs: npt.ArrayLike) -> Floats:
    """Row-wise Poisson-binomial: ``out[r, s]`` = P(exactly ``s`` of row ``r``'s events happen).

    ``probs`` is ``(rows, h)`` (or ``(h,)`` for one row) of independent
    probabilities; the result is ``(rows, h + 1)`` (or ``(h + 1,)``), computed
    by adding one card at a time: O(rows·h²), no enumeration of subsets.

    >>> trick_distributions([0.5, 0.5]).tolist()
    [0.25, 0.5, 0.25]
    """
    p = np.asarray(probs, dtype=np.float64)
    single = p.ndim == 1
    if single:
        p = p[None, :]
    if p.ndim != 2:
        raise ValueError(f"probabilities must be (rows, cards), got shape {p.shape}")
    rows, h = p.shape
    # cards by rows (each step's slices contiguous), no temporaries but one: ~4x faster than
    # the plain rows-by-cards loop, and the same products and sums in the same order
    pt = np.ascontiguousarray(p.T)
    qt = 1.0 - pt
    dist = np.zeros((h + 1, rows))
    dist[0] = 1.0
    took = np.empty((h, rows))
    for j in range(h):
        np.multiply(dist[:j + 1], pt[j], out=took[:j + 1])  # one more trick with card j
        dist[1:j + 2] *= qt[j]
        dist[1:j + 2] += took[:j + 1]
        dist[0] *= qt[j]
    return dist[:, 0].copy() if single else np.ascontiguousarray(dist.T)


def score_table(bids: Sequence[int], base_tricks: int, bid: int | None = None,
                outcomes: int = 0) -> Floats:
    """Wizard scores: ``[i, t]`` = `round_score` of ``bids[i]`` with ``t`` tricks.

    With ``bid`` given instead, one row: the score of ``bid`` with
    ``base_tricks + t`` tricks for ``t`` in ``0..outcomes-1``.
    """
    if bid is not None:
        return np.array([round_score(bid, base_tricks + t) for t in range(outcomes)], np.float64)
    return np.array([[round_score(b, base_tricks + t) for t in range(outcomes)] for b in bids],
                    np.float64)


def expected_bid_scores(dist: Floats, bids: Sequence[int]) -> Floats:
    """Expected score of each bid given the distribution ``dist`` of tricks taken.

    >>> expected_bid_scores(np.array([0.0, 1.0]), [0, 1]).tolist()
    [-10.0, 30.0]
    """
    return score_table(bids, 0, outcomes=len(dist)) @ dist


def play_values(p_overall: Floats, p_immediate: Floats, legal: Sequence[int],
                bid: int, won: int) -> tuple[Floats, Floats]:
    """For each hand index in ``legal``: P(making ``bid`` exactly) and the expected score.

    ``p_overall`` holds p_O of every card in hand, ``p_immediate`` p_I of each
    legal card (same order as ``legal``). Playing card ``c`` leaves the rest of
    the hand to win the other tricks: the seed's
    ``p_I(c)·q(H∖c, w−1) + (1−p_I(c))·q(H∖c, w)`` with ``w = bid − won``.
    """
    h = len(p_overall)
    rows = np.repeat(p_overall[None, :], len(legal), axis=0)
    rows[np.arange(len(legal)), list(legal)] = 0.0  # the played card takes no later trick
    rest = trick_distributions(rows)  # (k, h + 1); the last column is always 0
    pi = p_immediate[:, None]
    combined = rest * (1.0 - pi)
    combined[:, 1:] += rest[:, :-1] * pi
    wanted = bid - won
    make = combined[:, wanted] if 0 <= wanted <= h else np.zeros(len(legal))
    expected = combined @ score_table((), won, bid=bid, outcomes=h + 1)
    return make, expected


@dataclass(frozen=True, slots=True)
class OIDecision:
    """An action and, when the networks were consulted, what they said.

    ``features`` has one row per card of ``cards`` (the hand); ``overall_asked``
    marks the rows whose p_O came from the network, ``p_overall`` holds every
    card's p_O; ``p_immediate`` maps each legal card to its p_I and
    ``immediate_asked`` names the legal cards whose p_I came from the network.
    Trainers turn these into labelled samples.
    """

    action: Action
    cards: tuple[int, ...] = ()
    features: npt.NDArray[np.float32] | None = None
    overall_asked: npt.NDArray[np.bool_] | None = None
    p_overall: Floats | None = None
    p_immediate: dict[int, float] = field(default_factory=dict)
    immediate_asked: frozenset[int] = frozenset()


class OnnxProbabilityNet:
    """One OI network file: ``features [batch, OI_FEATURE_SIZE] -> probability [batch]``.

    Raises `PolicyError` when the file is missing, its model card names
    another kind or feature version, or its input has the wrong width.
    """

    def __init__(self, path: str | os.PathLike[str], kind: str, *, threads: int = 1) -> None:
        import onnxruntime as ort

        self.path = Path(path)
        if not self.path.is_file():
            raise PolicyError(f"OI network {self.path} does not exist")
        card = read_model_card(self.path)
        if card.get("kind") != kind:
            raise PolicyError(f"{self.path.name}: model card kind is {card.get('kind')!r}, "
                              f"expected {kind!r}")
        if card.get("feature_version") not in OI_FEATURE_VERSIONS:
            raise PolicyError(f"{self.path.name} uses OI feature version "
                              f"{card.get('feature_version')}, this build reads "
                              f"{', '.join(map(str, OI_FEATURE_VERSIONS))}")
        #: the rows this network reads (`card_features`' ``version``)
        self.feature_version: int = card["feature_version"]
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(
                str(self.path), sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises several unrelated types
            raise PolicyError(f"cannot load {self.path}: {exc}") from exc
        width = self.session.get_inputs()[0].shape[-1]
        if width != OI_FEATURE_SIZE:
            raise PolicyError(f"{self.path.name} expects {width} features, not {OI_FEATURE_SIZE}")
        self.card = card

    def __call__(self, features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        out = self.session.run([OUTPUT_NAME], {INPUT_NAME: features})[0]
        return np.asarray(out, dtype=np.float32).reshape(-1)


def load_networks(directory: str | os.PathLike[str] | None = None) -> tuple[
        OnnxProbabilityNet, OnnxProbabilityNet]:
    """The shipped pair ``(overall, immediate)`` from ``directory`` (default `models_dir`).

    Raises `PolicyError` when either file is missing or unusable.
    """
    base = Path(directory) if directory is not None else models_dir()
    return (OnnxProbabilityNet(base / f"{OVERALL_NAME}.onnx", OVERALL_KIND),
            OnnxProbabilityNet(base / f"{IMMEDIATE_NAME}.onnx", IMMEDIATE_KIND))


def feature_version(net: ProbabilityNet) -> int:
    """The OI feature version ``net`` reads: its model card's (`OnnxProbabilityNet`), or this
    build's for a network without one (a trainer's)."""
    version = getattr(net, "feature_version", OI_FEATURE_VERSION)
    assert isinstance(version, int)
    return version


def _ask(net: ProbabilityNet, features: npt.NDArray[np.float32]) -> Floats:
    if len(features) == 0:
        return np.zeros(0)
    return np.clip(net(np.ascontiguousarray(features)).astype(np.float64), 0.0, 1.0)


class OIAgent(Agent):
    """Bids for the highest expected score, plays for the best chance of making the bid.

    ``overall`` and ``immediate`` map feature rows to probabilities (ONNX files
    via `load_networks`, or a trainer's networks). ``exploration`` is the chance
    of an exploring move (a random card, or a bid within one of the best),
    drawn from the agent's own generator seeded by ``seed`` / `reset`.
    ``objective`` ``"make"`` (the seed's) plays for P(making the bid exactly);
    ``"score"`` for the expected round score. Raises `ValueError` for an
    exploration outside 0–1 or an unknown objective.

    >>> agent = OIAgent(lambda x: np.full(len(x), 0.5, np.float32),
    ...                 lambda x: np.full(len(x), 0.5, np.float32))
    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=1)
    >>> agent.act(game.observation(game.current_player)) in game.legal_actions()
    True
    """

    name = "oi"

    def __init__(self, overall: ProbabilityNet, immediate: ProbabilityNet, *,
                 exploration: float = 0.0, seed: int | None = None,
                 objective: str = "make") -> None:
        if not 0.0 <= exploration <= 1.0:
            raise ValueError(f"exploration must be within 0-1, got {exploration}")
        if objective not in PLAY_OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(PLAY_OBJECTIVES)}, "
                             f"got {objective!r}")
        self.objective = objective
        self.overall = overall
        self.immediate = immediate
        version = feature_version(overall)
        if feature_version(immediate) != version:
            raise ValueError("OI's two networks read different feature versions")
        #: the rows both networks read (`card_features`' ``version``)
        self.feature_version = version
        self.exploration = exploration
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        return self.decide(observation).action

    def decide(self, observation: Observation, *, record: bool = False) -> OIDecision:
        """The action and what the networks were asked; ``record`` computes features of
        forced moves too (a trainer's samples). Raises `ValueError` without a legal action."""
        require_turn(observation)
        if observation.phase is Phase.CHOOSING_TRUMP:
            return OIDecision(self._choose_trump(observation))
        if observation.phase is Phase.BIDDING:
            return self._bid(observation)
        return self._play(observation, record)

    def action_scores(self, observation: Observation) -> dict[int, float]:
        """The expected round score of each legal action, keyed by `action_index`.

        Bids: `expected_bid_scores` of the hand's trick distribution; cards: the
        expected score of `play_values` (``p_I`` and the rest of the hand's
        ``p_O``); trump suits: the hand's best expected score with that trump.
        No exploration. Raises `ValueError` unless it is the observer's turn.
        """
        require_turn(observation)
        if observation.phase is Phase.BIDDING:
            sit = situation_of(observation)
            probs, _ = self._overall(sit, card_features(sit, sit.hand, self.feature_version))
            bids = [a.value for a in observation.legal_actions if isinstance(a, Bid)]
            scores = expected_bid_scores(trick_distributions(probs), bids)
            return {bid: float(score) for bid, score in zip(bids, scores, strict=True)}
        if observation.phase is Phase.CHOOSING_TRUMP:
            best = self._trump_scores(observation)
            return {TRUMP_BASE + a.suit.index: float(best[a.suit.index])
                    for a in observation.legal_actions if isinstance(a, ChooseTrump)}
        legal_cards = [a.card.id for a in observation.legal_actions if isinstance(a, PlayCard)]
        sit = situation_of(observation)
        features = card_features(sit, sit.hand, self.feature_version)
        index_of = {card: i for i, card in enumerate(sit.hand)}
        legal = [index_of[card] for card in legal_cards]
        p_overall, _ = self._overall(sit, features)
        p_immediate = self._immediate(sit, features, legal, legal_cards)
        bid = observation.bids[sit.me]
        assert bid is not None  # every bid is visible once play starts
        _, expected = play_values(p_overall, p_immediate, legal, bid,
                                  observation.tricks_won[sit.me])
        return {PLAY_BASE + card: float(value)
                for card, value in zip(legal_cards, expected, strict=True)}

    def _immediate(self, sit: Situation, features: npt.NDArray[np.float32], legal: list[int],
                   legal_cards: list[int]) -> Floats:
        exact = [immediate_exact(sit, card) for card in legal_cards]
        p_immediate = np.array([0.0 if p is None else p for p in exact])
        asked = np.array([p is None for p in exact], dtype=np.bool_)
        p_immediate[asked] = _ask(
            self.immediate, features[[i for i, a in zip(legal, asked, strict=True) if a]])
        return p_immediate

    def _overall(self, sit: Situation, features: npt.NDArray[np.float32]) -> tuple[
            Floats, npt.NDArray[np.bool_]]:
        exact = [overall_exact(sit, card) for card in sit.hand]
        asked = np.array([p is None for p in exact], dtype=np.bool_)
        probs = np.array([0.0 if p is None else p for p in exact])
        probs[asked] = _ask(self.overall, features[asked])
        return probs, asked

    def _bid(self, obs: Observation) -> OIDecision:
        sit = situation_of(obs)
        features = card_features(sit, sit.hand, self.feature_version)
        probs, asked = self._overall(sit, features)
        bids = [a.value for a in obs.legal_actions if isinstance(a, Bid)]
        scores = expected_bid_scores(trick_distributions(probs), bids)
        best = int(np.argmax(scores))
        if self.exploration and self._rng.random() < self.exploration:
            near = [i for i, b in enumerate(bids) if abs(b - bids[best]) <= 1]
            best = self._rng.choice(near)
        return OIDecision(BID_ACTIONS[bids[best]], sit.hand, features, asked, probs)

    def _play(self, obs: Observation, record: bool) -> OIDecision:
        legal_cards = [a.card.id for a in obs.legal_actions if isinstance(a, PlayCard)]
        if len(obs.hand) == 1 or (len(legal_cards) == 1 and not record):
            return OIDecision(PLAY_ACTIONS[legal_cards[0]])
        sit = situation_of(obs)
        features = card_features(sit, sit.hand, self.feature_version)
        index_of = {card: i for i, card in enumerate(sit.hand)}
        legal = [index_of[card] for card in legal_cards]
        p_overall, overall_asked = self._overall(sit, features)
        p_immediate = self._immediate(sit, features, legal, legal_cards)
        immediate_asked = np.array([immediate_exact(sit, card) is None for card in legal_cards],
                                   dtype=np.bool_)
        if self.exploration and self._rng.random() < self.exploration:
            choice = self._rng.randrange(len(legal))
        else:
            me = sit.me
            bid = obs.bids[me]
            assert bid is not None  # every bid is visible once play starts
            make, expected = play_values(p_overall, p_immediate, legal, bid, obs.tricks_won[me])
            make = np.round(make, 9)  # equal chances (e.g. a bid already missed): the score decides
            if self.objective == "score":
                make = np.zeros_like(make)
            choice = max(range(len(legal)), key=lambda i: (float(make[i]), float(expected[i])))
        return OIDecision(
            PLAY_ACTIONS[legal_cards[choice]], sit.hand, features, overall_asked, p_overall,
            dict(zip(legal_cards, p_immediate.tolist(), strict=True)),
            frozenset(c for c, a in zip(legal_cards, immediate_asked, strict=True) if a))

    def _choose_trump(self, obs: Observation) -> Action:
        best_scores = self._trump_scores(obs)
        legal = {a.suit.index for a in obs.legal_actions if isinstance(a, ChooseTrump)}
        suit = max(sorted(legal), key=lambda s: best_scores[s])
        return TRUMP_ACTIONS[suit]

    def _trump_scores(self, obs: Observation) -> Floats:
        """Per suit 0-3, the hand's expected score at its best bid with that trump."""
        situations = [situation_of(obs, trump=suit) for suit in range(4)]
        version = self.feature_version
        features = np.concatenate([card_features(s, s.hand, version) for s in situations])
        exact = [overall_exact(s, card) for s in situations for card in s.hand]
        asked = np.array([p is None for p in exact], dtype=np.bool_)
        probs = np.array([0.0 if p is None else p for p in exact])
        probs[asked] = _ask(self.overall, features[asked])
        h = len(obs.hand)
        dists = trick_distributions(probs.reshape(4, h))
        scores: Floats = (score_table(range(h + 1), 0, outcomes=h + 1) @ dists.T).max(axis=0)
        return scores


def make_oi_agent(seed: int | None = None, model_dir: str | os.PathLike[str] | None = None,
                  **options: object) -> Agent:
    """`make_agent("oi")`: the OI agent over the shipped networks.

    Options: ``model_dir`` (where ``oi_overall.onnx`` and ``oi_immediate.onnx``
    live) and ``exploration`` (default 0). Raises `PolicyError` when a network
    is missing or unusable: an ``oi`` is never silently a heuristic.
    """
    overall, immediate = load_networks(model_dir)
    exploration = options.get("exploration", 0.0)
    assert isinstance(exploration, int | float)
    return OIAgent(overall, immediate, exploration=float(exploration), seed=seed)


__all__ = [
    "IMMEDIATE_KIND",
    "IMMEDIATE_NAME",
    "OVERALL_KIND",
    "OVERALL_NAME",
    "OIAgent",
    "OIDecision",
    "OnnxProbabilityNet",
    "ProbabilityNet",
    "expected_bid_scores",
    "feature_version",
    "load_networks",
    "make_oi_agent",
    "play_values",
    "score_table",
    "trick_distributions",
]
