#!/usr/bin/env python3
"""Measure variants of the master bot head to head (duplicate deals, every rotation).

Each variant plays two seats against two of an opponent (default ``search-v1``,
the master as it was on 2026-12-02) with `calibrate_pair`: the lead's 95 %
interval is over deals. One JSON line per variant goes to ``--out``. The
variants are `SearchAgent` settings written below, so a result can be rerun
exactly: ``scripts/master_variants.py --variants worlds64 --games 100 --seed 31``.
Long: run it in the background under ``nice`` (docs/ai.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict
from typing import Any

import numpy as np

from wizard.ai.agents.heuristic import expected_tricks
from wizard.ai.encoding import ActionSpace, encode_observation
from wizard.ai.evaluate import evaluate
from wizard.ai.levels.calibrate import calibrate_pair
from wizard.ai.lookahead import after_card
from wizard.ai.policy import OnnxPolicy, bid_scores, models_dir, with_bid
from wizard.ai.registry import agent_names, register_agent
from wizard.ai.search import Budget, SearchAgent, blend, inference, pimc
from wizard.ai.search.budget import (
    GAME_PRIOR_WEIGHT,
    TABLE_PRIOR_WEIGHT,
    V6_BUDGET,
    V7_BUDGET,
    V9_BUDGET,
    opponents_gate,
)
from wizard.ai.search.oi_plays import OIPlayInference
from wizard.ai.search.plays import observed_plays
from wizard.ai.search.prior import load_prior, master_prior
from wizard.ai.search.refine import refined_deals
from wizard.ai.search.rollout import closest_bid, heuristic_card, rollout_score
from wizard.ai.search.table import TableWeight, heuristic_belief, round_reading, weight_at
from wizard.ai.search.worlds import world_core
from wizard.engine import (
    PLAY_BASE,
    Bid,
    Observation,
    Phase,
    PlayCard,
    WizardGame,
    action_index,
    ids_of,
)
from wizard.engine.core import ROUND_DONE
from wizard.engine.rules import round_score

#: master v3's budget (`master_budget(32, 3)`): the variants below start from it
V3: dict[str, Any] = {"worlds": 32, "inference": 5.0, "plays": 0.3, "oversample": 8,
                      "min_ess": 0.1}
#: name -> (Budget keyword arguments, prior weight)
VARIANTS: dict[str, tuple[dict[str, Any], float]] = {
    "v1": ({"worlds": 32}, 0.5),
    "worlds64": ({"worlds": 64}, 0.5),
    "worlds128": ({"worlds": 128}, 0.5),
    "prior65": ({"worlds": 32}, 0.65),
    "prior35": ({"worlds": 32}, 0.35),
    "bidfit": ({"worlds": 32, "bid_spread": 1.0}, 0.5),
    "inf10": ({"worlds": 32, "inference": 10.0}, 0.5),
    "inf5": ({"worlds": 32, "inference": 5.0}, 0.5),
    "inf20": ({"worlds": 32, "inference": 20.0}, 0.5),
    "inf10w64": ({"worlds": 64, "inference": 10.0}, 0.5),
    "plays3": ({"worlds": 32, "inference": 5.0, "plays": 0.3}, 0.5),
    "plays3o8": (V3, 0.5),
    "plays1o8": ({**V3, "plays": 0.1}, 0.5),
    "plays3o8w64": ({**V3, "worlds": 64}, 0.5),
    "plays3o8p65": (V3, 0.65),
    "plays3o8p80": (V3, 0.8),
    "plays3o8p90": (V3, 0.9),
    "plays3o8p35": (V3, 0.35),
    "plays3o8p20": (V3, 0.2),
}


#: name -> (Budget keyword arguments, prior weight): the prior is OI's and the shipped
#: policy's expected scores averaged (`PolicyScorer`, `MeanScorer`)
POLICY_VARIANTS: dict[str, tuple[dict[str, Any], float]] = {
    "polprior": (V3, 0.5),
    "polprior67": (V3, 2.0 / 3.0),
    "polbids": (V3, 0.5),  # the policy's values of the bids only
    "pol5prior": (V3, 0.5),  # the policy v5: cards by its after-card head
}

#: the policy file each policy variant reads (the others: the policy v3, as measured first)
POLICY_FILES = {"pol5prior": "default.onnx"}  # v5 when measured (2026-12-04); now v6


#: name -> (Budget keyword arguments, prior weight of the bids, prior weight of the cards)
PHASE_VARIANTS: dict[str, tuple[dict[str, Any], float, float]] = {
    "bids80cards50": (V3, 0.8, 0.5),
    "bids50cards80": (V3, 0.5, 0.8),
}


#: name -> (Budget keyword arguments, the prior's weight read from the table)
TABLE_VARIANTS: dict[str, tuple[dict[str, Any], TableWeight]] = {
    "table": (V3, TableWeight(0.5, 0.8, prior=0.5)),
    "table_p2": (V3, TableWeight(0.5, 0.8, prior=0.2)),
    "table_p8": (V3, TableWeight(0.5, 0.8, prior=0.8)),
    # master v5 searching every legal bid, not only those within 3 of the heuristic's estimate
    "allbids": ({**V3, "bid_window": None}, TableWeight(0.5, 0.8, prior=0.2)),
    # master v7 (its swaps where the table reads like the heuristic) trusting its own search
    # more there: OI's weight falls to 0.3 instead of 0.5 as the plays read like the heuristic
    "v7low30": (asdict(V7_BUDGET), TableWeight(0.3, 0.8, prior=0.2)),
}


#: name -> the budget (over v3's) where the table reads "not like the heuristic" (a weight
#: of OI above 0.65: ``above`` True) or like it (at most 0.6: False); master v5 otherwise.
#: The play inference's error loosened against strong players (``plays`` None: none), or
#: sharpened against heuristic ones, whose plays it models exactly, with more candidates.
LOOSE_VARIANTS: dict[str, tuple[dict[str, Any], bool]] = {
    "loose6": ({"plays": 0.6}, True), "loosenone": ({"plays": None}, True),
    "sharp05": ({"plays": 0.05, "oversample": 16, "min_ess": 0.05}, False),
}


class LooseAgent(SearchAgent):
    """Master v5 whose play inference changes with how the table reads (`LOOSE_VARIANTS`)."""

    def __init__(self, *args: Any, changes: dict[str, Any], above: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.usual = self.budget
        self.changed = Budget(**{**V3, **changes})
        self.above = above

    def action_scores(self, observation: Observation) -> dict[int, float]:
        reading = TABLE_PRIOR_WEIGHT.weight(observation, self.seed)
        applies = reading > 0.65 if self.above else reading <= 0.6
        self.budget = self.changed if applies else self.usual
        return super().action_scores(observation)


#: name -> (the error of OI's play as the model of the other seats' plays, whether only where
#: the table reads "not like the heuristic" (OI's weight above 0.65)); master v5 otherwise
OI_PLAY_VARIANTS: dict[str, tuple[float, bool]] = {
    "oiplays": (0.1, True), "oiplaysall": (0.1, False), "oiplays03": (0.03, True)}


class OIPlayAgent(SearchAgent):
    """Master v5 whose play inference reads the plays with OI's play as the model
    (`wizard.ai.search.oi_plays`) where `OI_PLAY_VARIANTS` says."""

    def __init__(self, *args: Any, error: float, gated: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.error, self.gated = error, gated

    def action_scores(self, observation: Observation) -> dict[int, float]:
        prior = self.prior
        applies = observation.phase is Phase.PLAYING and prior is not None and not (
            self.gated and TABLE_PRIOR_WEIGHT.weight(observation, self.seed) <= 0.65)
        if not applies:
            return super().action_scores(observation)
        model = OIPlayInference(prior.overall, prior.immediate, self.error)
        usual = pimc.PlayInference
        pimc.PlayInference = lambda error: model  # type: ignore[assignment,misc]
        try:
            return super().action_scores(observation)
        finally:
            pimc.PlayInference = usual  # type: ignore[misc]


class HeuristicBids:
    """The other seats' bids under the heuristic's bid (`heuristic_bid`'s rule: the legal bid
    closest to `expected_tricks` of the hand it bid with), softened by ``error``."""

    def __init__(self, error: float) -> None:
        self.error = error

    def log_likelihoods(self, observation: Observation, deals: Any) -> list[float]:
        bidders = inference.visible_bidders(observation)
        if not bidders:
            return [0.0] * len(deals)
        trump = observation.trump_suit.index if observation.trump_suit is not None else -1
        n = observation.num_players
        memo: dict[tuple[int, int], float] = {}
        out = []
        for hands in deals:
            total = 0.0
            for b in bidders:
                hand = hands[b.seat] | b.gone
                score = memo.get((b.seat, hand))
                if score is None:
                    legal = sum(1 << x for x in b.legal)
                    guess = closest_bid(expected_tricks(ids_of(hand), trump, n), legal)
                    score = (math.log(1 - self.error) if guess == b.bid
                             else math.log(self.error / (len(b.legal) - 1)))
                    memo[(b.seat, hand)] = score
                total += score
            out.append(total)
        return out


class HeuristicEvidence:
    """`Evidence` with the heuristic's bids instead of OI's."""

    def __init__(self, bids: HeuristicBids, plays: Any, min_ess: float) -> None:
        self.bids, self.plays, self.min_ess = bids, plays, min_ess

    def log_weights(self, observation: Observation, deals: Any) -> list[float]:
        total = self.bids.log_likelihoods(observation, deals)
        if self.plays is not None:
            total = [a + b for a, b in zip(
                total, self.plays.log_likelihoods(observation, deals), strict=True)]
        return inference.temper(total, self.min_ess)


#: name -> (bid error, play error, oversample, min_ess) of the heuristic's model of bids and
#: plays where the table reads like the heuristic (OI's weight at most 0.6); v5 otherwise
HEURISTIC_MODEL_VARIANTS: dict[str, tuple[float, float, int, float]] = {
    "hsharp": (0.05, 0.05, 32, 0.03), "hsharp16": (0.05, 0.05, 16, 0.05)}


class HeuristicModelAgent(SearchAgent):
    """Master v5 whose worlds, where the table reads like the heuristic, are weighed by the
    heuristic's bids and plays, sharply, among more candidates."""

    def __init__(self, *args: Any, model: tuple[float, float, int, float],
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.usual = self.budget
        bid_error, play_error, oversample, min_ess = model
        self.bid_error = bid_error
        self.changed = Budget(**{**V3, "plays": play_error, "oversample": oversample,
                                 "min_ess": min_ess})

    def action_scores(self, observation: Observation) -> dict[int, float]:
        if TABLE_PRIOR_WEIGHT.weight(observation, self.seed) > 0.6:
            self.budget = self.usual
            return super().action_scores(observation)
        self.budget = self.changed
        usual = pimc.Evidence
        error = self.bid_error
        pimc.Evidence = lambda bids, plays, min_ess: HeuristicEvidence(  # type: ignore
            HeuristicBids(error), plays, min_ess)
        try:
            return super().action_scores(observation)
        finally:
            pimc.Evidence = usual  # type: ignore[misc]


#: name -> swaps per world (`wizard.ai.search.refine`, the heuristic's model at errors 0.05,
#: 8 candidates a world, tempering floor 0.03) where the table reads like the heuristic
REFINE_VARIANTS: dict[str, int] = {"refine30": 30, "refine100": 100, "refine200": 200,
                                   "refine300": 300}
#: name -> master v6 whose bids' worlds are refined under the heuristic's model whatever the
#: table reads (the bids' table reading is always the prior's, so v6 never refines them)
BID_REFINE_VARIANTS: dict[str, int] = {"refinebids": 100}


class RefineAgent(SearchAgent):
    """Master v5 whose worlds, where `applies` (the table reads like the heuristic: OI's
    weight at most 0.6), are refined by swaps under the heuristic's model of bids and plays."""

    def __init__(self, *args: Any, steps: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.steps = steps

    def applies(self, observation: Observation) -> bool:
        return TABLE_PRIOR_WEIGHT.weight(observation, self.seed) <= 0.6

    def action_scores(self, observation: Observation) -> dict[int, float]:
        if not self.applies(observation):
            return super().action_scores(observation)
        usual = pimc._worlds
        steps = self.steps

        def worlds(obs: Observation, budget: Budget, seed: int, what: str,
                   bid_model: Any) -> list[Any]:
            deals = refined_deals(obs, budget.worlds, pimc._rng(obs, seed, what),
                                  bid_error=0.05, play_error=0.05, oversample=8,
                                  min_ess=0.03, steps=steps)
            return [world_core(obs, d) for d in deals]

        pimc._worlds = worlds  # type: ignore[assignment]
        try:
            return super().action_scores(observation)
        finally:
            pimc._worlds = usual  # type: ignore[assignment]


#: name -> master v7 reading the table over the game's earlier rounds too, not only this
#: round's plays (the agent remembers, per game, each round's last reading)
MEMORY_VARIANTS: dict[str, TableWeight] = {"memory": TABLE_PRIOR_WEIGHT,
                                           "memorylow30": TableWeight(0.3, 0.8, prior=0.2)}


class MemoryAgent(SearchAgent):
    """Master v7 whose table reading (the prior's weight, and whether its worlds are refined)
    counts the other seats' explained and informative plays of the game's earlier rounds as
    well as this round's. A prototype: the shipped agent sees one observation, which holds
    this round's plays only, so it would need the earlier rounds from the table."""

    def __init__(self, *args: Any, table: TableWeight, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table = table
        self._forget()

    def _forget(self) -> None:
        self.round = -1
        self.earlier = (0, 0)
        self.this_round = (0, 0)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._forget()

    def _read(self, observation: Observation) -> tuple[float, float]:
        """OI's weight for the swaps' gate (as `TABLE_PRIOR_WEIGHT` reads) and for the blend."""
        if observation.round_number != self.round:
            self.earlier = (self.earlier[0] + self.this_round[0],
                            self.earlier[1] + self.this_round[1])
            self.this_round = (0, 0)
            self.round = observation.round_number
        if observed_plays(observation):
            self.this_round = round_reading(observation, self.seed, self.table.deals)
        belief = heuristic_belief(self.earlier[0] + self.this_round[0],
                                  self.earlier[1] + self.this_round[1], self.table.prior)
        return TABLE_PRIOR_WEIGHT.at(belief), self.table.at(belief)

    def action_scores(self, observation: Observation) -> dict[int, float]:
        gate, weight = self._read(observation)

        class Read:
            def weight(self, obs: Observation, seed: int) -> float:
                return gate

        usual = pimc.TABLE_PRIOR_WEIGHT, self.prior_weight
        pimc.TABLE_PRIOR_WEIGHT = Read()  # type: ignore[assignment]
        self.prior_weight = weight
        try:
            return super().action_scores(observation)
        finally:
            pimc.TABLE_PRIOR_WEIGHT, self.prior_weight = usual


class BidRefineAgent(RefineAgent):
    """Master v6 (its own swaps at the cards) whose bids' worlds are always refined
    (`BID_REFINE_VARIANTS`)."""

    def applies(self, observation: Observation) -> bool:
        return observation.phase is Phase.BIDDING


class RestAgent(SearchAgent):
    """Master v5 whose card values, where `applies`, play the rest of the round in each
    world by `rest` instead of the heuristic rollout (prototypes to measure levers; they
    use the search's own worlds, `pimc._worlds`)."""

    def applies(self, observation: Observation) -> bool:
        return observation.phase is Phase.PLAYING

    def rest(self, core: Any, me: int, observation: Observation) -> int:
        """``me``'s round points from ``core`` on (a candidate card just played)."""
        raise NotImplementedError

    def action_scores(self, observation: Observation) -> dict[int, float]:
        if self.prior is None or not self.applies(observation):
            return super().action_scores(observation)
        worlds = pimc._worlds(observation, self.budget, self.seed, "card", self.bid_model)
        me = observation.player
        assert me is not None
        values: dict[int, float] = {}
        for action in (action_index(a) for a in observation.legal_actions):
            total = 0
            for world in worlds:
                core = world.copy()
                if core.apply(action) >= ROUND_DONE:
                    total += round_score(core.last_bids[me], core.last_tricks[me])
                else:
                    total += self.rest(core, me, observation)
            values[action] = total / len(worlds)
        return blend(values, self.prior.action_scores(observation),
                     weight_at(self.prior_weight, observation, self.seed))


#: name -> OI plays the other seats' cards in the rest of the current trick: only where the
#: table reads "not like the heuristic" (True), or always (False); master v5 otherwise
OI_TRICK_VARIANTS: dict[str, bool] = {"oitrick": True, "oitrickall": False}


class OITrickAgent(RestAgent):
    """OI (the actual `OIAgent`, one call per seat, world and candidate: slow) plays the other
    seats' cards in the rest of the current trick; the heuristic rollout the round on."""

    def __init__(self, *args: Any, oi: Any, gated: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.oi, self.gated = oi, gated

    def applies(self, observation: Observation) -> bool:
        return super().applies(observation) and not (
            self.gated and TABLE_PRIOR_WEIGHT.weight(observation, self.seed) <= 0.65)

    def rest(self, core: Any, me: int, observation: Observation) -> int:
        shell = WizardGame.__new__(WizardGame)
        shell.num_players = observation.num_players
        shell.options = observation.options
        shell._last_trick = observation.last_trick
        shell._round_history = observation.round_history
        shell.core = core
        while core.trick and core.current != me:
            card = action_index(self.oi.act(shell.observation(core.current)))
            if core.apply(card) >= ROUND_DONE:
                return round_score(core.last_bids[me], core.last_tricks[me])
        return rollout_score(core, me)[0]


#: name -> the most cards in hand at which master's own later cards in each world are its
#: best reply there (the others still the heuristic) instead of the heuristic's; master v5
#: otherwise
ENDGAME_VARIANTS: dict[str, int] = {"endgame3": 3, "endgame4": 4}
#: master v9 (`search`) with OI's values at this weight where OI plays the other seats in its
#: rollouts (shipped: `OI_ROLLOUT_PRIOR_WEIGHT` 0.5)
OI_WEIGHT_VARIANTS: dict[str, float] = {"oiw30": 0.3, "oiw70": 0.7}


class MixAgent(SearchAgent):
    """``oimix``: master v9 whose values where the gate opens are the mean of the heuristic's
    rollout values (v8's search) and OI's rollout values, blended with the prior at 0.5:
    the prototype of master v10 (`Budget.oi_mix`), which gives the same values."""

    def action_scores(self, observation: Observation) -> dict[int, float]:
        if (self.prior is None or observation.phase not in (Phase.BIDDING, Phase.PLAYING)
                or not opponents_gate(observation)):
            return super().action_scores(observation)
        oi = pimc.master_values(observation, self.budget, self.seed, None, 0.0,
                                self.bid_model, self.opponents)
        heuristic = pimc.action_values(observation, self.budget, self.seed, self.bid_model)
        mixed = {a: (v + heuristic[a]) / 2 for a, v in oi.items() if a in heuristic}
        return blend(mixed, self.prior.action_scores(observation), 0.5)


def best_reply(core: Any, me: int) -> int:
    """``me``'s best round points from here in this world: every own card tried, every other
    seat playing the heuristic's card."""
    while True:
        if core.current == me:
            best = None
            legal = core.legal_mask() >> PLAY_BASE
            while legal:
                low = legal & -legal
                legal ^= low
                child = core.copy()
                if child.apply(PLAY_BASE + low.bit_length() - 1) >= ROUND_DONE:
                    value = round_score(child.last_bids[me], child.last_tricks[me])
                else:
                    value = best_reply(child, me)
                best = value if best is None else max(best, value)
            assert best is not None
            return best
        if core.apply(PLAY_BASE + heuristic_card(core)) >= ROUND_DONE:
            return round_score(core.last_bids[me], core.last_tricks[me])


class EndgameAgent(RestAgent):
    """With few cards left, master's own later cards are the best reply in each world."""

    def __init__(self, *args: Any, cards: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cards = cards

    def applies(self, observation: Observation) -> bool:
        return super().applies(observation) and len(observation.hand) <= self.cards

    def rest(self, core: Any, me: int, observation: Observation) -> int:
        return best_reply(core, me)


def settings(name: str) -> tuple[dict[str, Any], Any]:
    if name == "oimix":
        return {**asdict(V9_BUDGET), "mix": "heuristic and OI rollouts"}, asdict(
            GAME_PRIOR_WEIGHT)
    if name in OI_WEIGHT_VARIANTS:
        return ({**asdict(V9_BUDGET), "oi_weight": OI_WEIGHT_VARIANTS[name]},
                asdict(GAME_PRIOR_WEIGHT))
    if name in BID_REFINE_VARIANTS:
        return asdict(V6_BUDGET), asdict(TABLE_PRIOR_WEIGHT)
    if name in MEMORY_VARIANTS:
        return asdict(V7_BUDGET), {"over the game's rounds": asdict(MEMORY_VARIANTS[name])}
    if name in REFINE_VARIANTS:
        return {**V3, "where": {"at most 0.6": {
            "refine": {"steps": REFINE_VARIANTS[name], "heuristic bids": 0.05, "plays": 0.05,
                       "oversample": 8, "min_ess": 0.03}}}}, asdict(TABLE_PRIOR_WEIGHT)
    if name in HEURISTIC_MODEL_VARIANTS:
        bid_error, play_error, oversample, min_ess = HEURISTIC_MODEL_VARIANTS[name]
        return {**V3, "where": {"at most 0.6": {
            "heuristic bids": bid_error, "plays": play_error, "oversample": oversample,
            "min_ess": min_ess}}}, asdict(TABLE_PRIOR_WEIGHT)
    if name in OI_PLAY_VARIANTS:
        error, gated = OI_PLAY_VARIANTS[name]
        return {**V3, "oi_plays": {"error": error, "where": "above 0.65" if gated else "always"}
                }, asdict(TABLE_PRIOR_WEIGHT)
    if name in ENDGAME_VARIANTS:
        return {**V3, "endgame": ENDGAME_VARIANTS[name]}, asdict(TABLE_PRIOR_WEIGHT)
    if name in OI_TRICK_VARIANTS:
        return V3, asdict(TABLE_PRIOR_WEIGHT)
    if name in LOOSE_VARIANTS:
        changes, above = LOOSE_VARIANTS[name]
        return {**V3, "where": {"above 0.65" if above else "at most 0.6": changes}}, asdict(
            TABLE_PRIOR_WEIGHT)
    if name in TABLE_VARIANTS:
        budget, table = TABLE_VARIANTS[name]
        return budget, asdict(table)
    if name in PHASE_VARIANTS:
        budget, bids, _ = PHASE_VARIANTS[name]
        return budget, bids
    return VARIANTS[name] if name in VARIANTS else POLICY_VARIANTS[name]


class PhaseWeightAgent(SearchAgent):
    """A master whose prior weight depends on the phase: one for bids (and the trump), one
    for cards."""

    def __init__(self, *args: Any, card_weight: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bid_weight, self.card_weight = self.prior_weight, card_weight

    def action_scores(self, observation: Observation) -> dict[int, float]:
        playing = observation.phase is Phase.PLAYING
        self.prior_weight = self.card_weight if playing else self.bid_weight
        return super().action_scores(observation)


class PolicyScorer:
    """A policy's expected round score of each bid (its tricks head after the bid) and card
    (after the card, `wizard.ai.lookahead`: its after-card head where it has one), keyed by
    action index."""

    def __init__(self, cards: bool = True, file: str = "default-v3.onnx") -> None:
        self.policy = OnnxPolicy(models_dir() / file)
        self.cards = cards

    def action_scores(self, observation: Observation) -> dict[int, float]:
        features = encode_observation(observation)[None, :]
        if observation.phase is Phase.BIDDING:
            bids = np.array([a.value for a in observation.legal_actions if isinstance(a, Bid)])
            rows = with_bid(np.repeat(features, len(bids), axis=0), bids)
            masks = np.repeat(ActionSpace.mask(observation)[None, :], len(bids), axis=0)
            scores = bid_scores(self.policy.run(rows, masks).tricks, bids)
            return {int(b): float(v) for b, v in zip(bids, scores, strict=True)}
        if observation.phase is not Phase.PLAYING or not self.cards:
            return {}
        cards = np.array([a.card.id for a in observation.legal_actions
                          if isinstance(a, PlayCard)])
        rows, masks = after_card(np.repeat(features, len(cards), axis=0), cards)
        seat = observation.current_player
        assert seat is not None
        bid = observation.bids[seat]
        assert bid is not None
        out = self.policy.run(rows, masks)
        tricks = out.after if out.after is not None else out.tricks
        scores = bid_scores(tricks, np.full(len(cards), bid))
        return {PLAY_BASE + int(c): float(v) for c, v in zip(cards, scores, strict=True)}


class MeanScorer:
    """The mean of several scorers' values, over the scorers that value an action."""

    def __init__(self, *scorers: Any) -> None:
        self.scorers = scorers

    def action_scores(self, observation: Observation) -> dict[int, float]:
        sums: dict[int, list[float]] = {}
        for scorer in self.scorers:
            for action, value in scorer.action_scores(observation).items():
                sums.setdefault(action, []).append(value)
        return {a: sum(v) / len(v) for a, v in sums.items()}


#: the OI networks the variants' prior reads (``--prior-dir``; None: the shipped ones)
PRIOR_DIR: str | None = None


def variant_prior() -> Any:
    """The variants' OI prior: the shipped networks, or those in `PRIOR_DIR`."""
    return master_prior() if PRIOR_DIR is None else load_prior(PRIOR_DIR)


def register_oi(directory: str) -> str:
    """An agent ``oi:DIR``: OI over the networks in ``directory`` (to measure them as a bot)."""
    agent_name = f"oi:{directory}"

    def factory(seed: int | None = None, **_: object) -> Any:
        agent = load_prior(directory)
        assert agent is not None, f"no OI networks in {directory}"
        agent.reset(seed)
        agent.name = agent_name
        return agent

    register_agent(agent_name, factory)
    return agent_name


def register(name: str) -> str:
    budget_args, weight = settings(name)
    agent_name = f"variant:{name}"

    def factory(seed: int | None = None, **_: object) -> SearchAgent:
        prior = variant_prior()
        common: dict[str, Any] = {
            "seed": seed, "prior": prior, "prior_weight": weight,
            "bid_model": prior.overall if prior is not None else None}
        v5 = {**common, "prior_weight": TABLE_PRIOR_WEIGHT}
        agent: SearchAgent
        if name in POLICY_VARIANTS:
            scorer = MeanScorer(prior, PolicyScorer(
                cards=name != "polbids", file=POLICY_FILES.get(name, "default-v3.onnx")))
            agent = SearchAgent(Budget(**budget_args), **{**common, "prior": scorer})
        elif name in BID_REFINE_VARIANTS:
            agent = BidRefineAgent(V6_BUDGET, steps=BID_REFINE_VARIANTS[name], **v5)
        elif name in MEMORY_VARIANTS:
            agent = MemoryAgent(V7_BUDGET, table=MEMORY_VARIANTS[name], **v5)
        elif name in REFINE_VARIANTS:
            agent = RefineAgent(Budget(**V3), steps=REFINE_VARIANTS[name], **v5)
        elif name in HEURISTIC_MODEL_VARIANTS:
            agent = HeuristicModelAgent(Budget(**V3), model=HEURISTIC_MODEL_VARIANTS[name],
                                        **v5)
        elif name in OI_PLAY_VARIANTS:
            error, gated = OI_PLAY_VARIANTS[name]
            agent = OIPlayAgent(Budget(**V3), error=error, gated=gated, **v5)
        elif name in ENDGAME_VARIANTS:
            agent = EndgameAgent(Budget(**V3), cards=ENDGAME_VARIANTS[name], **v5)
        elif name in OI_TRICK_VARIANTS:
            agent = OITrickAgent(Budget(**V3), oi=variant_prior(),
                                 gated=OI_TRICK_VARIANTS[name], **v5)
        elif name in LOOSE_VARIANTS:
            changes, above = LOOSE_VARIANTS[name]
            agent = LooseAgent(Budget(**V3), changes=changes, above=above, **v5)
        elif name in TABLE_VARIANTS:
            agent = SearchAgent(Budget(**budget_args),
                                **{**common, "prior_weight": TABLE_VARIANTS[name][1]})
        elif name == "oimix":
            agent = MixAgent(V9_BUDGET, **{**common, "prior_weight": GAME_PRIOR_WEIGHT},
                             opponents=(prior.overall, prior.immediate) if prior else None)
        elif name in OI_WEIGHT_VARIANTS:
            agent = SearchAgent(V9_BUDGET, **{**common, "prior_weight": GAME_PRIOR_WEIGHT},
                                opponents=(prior.overall, prior.immediate) if prior else None,
                                oi_weight=OI_WEIGHT_VARIANTS[name])
        elif name in PHASE_VARIANTS:
            agent = PhaseWeightAgent(Budget(**budget_args), card_weight=PHASE_VARIANTS[name][2],
                                     **common)
        else:
            agent = SearchAgent(Budget(**budget_args), **common)
        agent.name = agent_name
        return agent

    register_agent(agent_name, factory)
    return agent_name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", required=True, help="comma-separated: "
                        + ", ".join([*VARIANTS, *POLICY_VARIANTS, *PHASE_VARIANTS,
                                     *TABLE_VARIANTS, *LOOSE_VARIANTS, *OI_TRICK_VARIANTS,
                                     *ENDGAME_VARIANTS, *OI_PLAY_VARIANTS,
                                     *HEURISTIC_MODEL_VARIANTS, *REFINE_VARIANTS,
                                     *BID_REFINE_VARIANTS, *MEMORY_VARIANTS])
                        + "; or a registered agent as it is (search, search-v7, ...)")
    parser.add_argument("--against", default="search-v1")
    parser.add_argument("--table", default=None,
                        help="instead of head to head: the variant at a table of these agents, "
                             "e.g. heuristic,heuristic,heuristic (wizard evaluate's statistics)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="-")
    parser.add_argument("--prior-dir", default=None,
                        help="the variants' OI prior from these networks instead of the "
                             "shipped ones (e.g. a `wizard train oi` run's directory); the "
                             "opponent `oi` stays the shipped OI, `oi:DIR` is OI over DIR's")
    args = parser.parse_args(argv)
    global PRIOR_DIR
    PRIOR_DIR = args.prior_dir
    if args.against.startswith("oi:"):
        register_oi(args.against[3:])
    for name in args.variants.split(","):
        if name.startswith("oi:"):  # OI over other networks, measured as a bot itself
            agent, (budget, weight) = register_oi(name[3:]), (None, None)
        elif name in agent_names():  # a registered agent as it is, e.g. the shipped `search`
            agent, (budget, weight) = name, (None, None)
        else:
            agent, (budget, weight) = register(name), settings(name)
        described = {"variant": name, "budget": budget, "prior_weight": weight,
                     "prior_dir": PRIOR_DIR}
        start = time.monotonic()
        if args.table:
            table = evaluate([agent, *args.table.split(",")], args.games, seed=args.seed,
                             jobs=args.jobs)
            others = table.agents[1:]
            line = json.dumps({**described, "table": args.table,
                               "games": table.games, "seed": args.seed,
                               "lead": round(table.agents[0].mean
                                             - sum(a.mean for a in others) / len(others), 1),
                               "agents": table.to_dict()["agents"],
                               "wall_s": round(time.monotonic() - start)})
            emit(line, args.out)
            continue
        result = calibrate_pair(agent, args.against, args.games, args.seed, args.jobs)
        line = json.dumps({**described, "against": args.against,
                           "games": result.games, "seed": args.seed,
                           "lead": asdict(result.lead), "upper": asdict(result.upper_score),
                           "lower": asdict(result.lower_score),
                           "ms": [round(result.upper_ms, 2), round(result.lower_ms, 2)],
                           "wall_s": round(time.monotonic() - start)})
        emit(line, args.out)
    return 0


def emit(line: str, out: str) -> None:
    if out == "-":
        print(line, flush=True)
    else:
        with open(out, "a") as stream:
            stream.write(line + "\n")


if __name__ == "__main__":
    sys.exit(main())
