"""Reading the table: do the other seats play like the search's model of them?

The search plays every other seat with the heuristic in its rollouts
(`wizard.ai.search.rollout`). Against heuristic players that model is right and
the searched values deserve most of the weight; against players who play
better (OI, people) it is wrong, and OI's values, which assume no model of the
opponents, deserve more (`wizard.ai.search.blend`). Measured: weighting OI
0.8 gained 18 points a game over 0.5 against OI and lost 26 against heuristics
(docs/measurements/ai.md#masters-prior-weight-against-oi). So the master
reads the table as the round goes on.

Each card another seat played this round (with a visible bid) is *explained*
when, in at least one of ``deals`` sampled deals of the hidden cards (voids
and hand sizes respected), the heuristic given that seat's hand then would
have played it; a play that no deal leaves a choice says nothing. Measured at
a seat's card decisions over 6 games each (`scripts/explained_plays.py`,
docs/measurements/ai.md#reading-the-table): heuristic players' plays are
explained 97–98 % of the time, OI's 52–59 %. Two hypotheses, "they play like
the heuristic" (a play explained with `EXPLAINED_IF_HEURISTIC`) and "they do
not" (`EXPLAINED_OTHERWISE`), give the belief

    P(heuristic | plays) = σ(logit(prior) + x·log(h/o) + (m − x)·log((1 − h)/(1 − o)))

for ``x`` explained of ``m`` informative plays, and the weight of the prior
moves from ``high`` (no belief) to ``low`` (sure):

    weight = high − (high − low) · P(heuristic | plays)

Before the first informative play of a round (every bid) the belief is
``prior``: master's is 0.2 (a weight of 0.74), as the players it meets most,
people and the stronger bots, play better than the heuristic, and the bids'
weight measured no difference either way. The deals come from the
observation and a seed, so the same position gives the same weight.

A table weight with ``game`` (master v8) also reads the plays of the game's
finished rounds, where every hand is known (`finished_reading`): the
heuristic, given the hand a seat really held, chose 100 % of heuristic
players' informative plays and 46.5 % of OI's (1,060 and 1,112 plays,
docs/measurements/ai.md#trusting-the-refined-search-and-reading-the-table-over-the-game),
so from the second round on the master knows a table of heuristic players,
where reading each round afresh it knew it for 0 % of the card decisions of
rounds 1–2. Its belief is the larger of this round's and the whole game's: the
game may tell it that the table plays like its rollouts, and where the game
says otherwise a round whose plays read like the heuristic still lowers OI's
weight, as before (against the hard bots, whose sampled plays the game reads
as not the heuristic's, the game's belief alone cost 15 points a game).

>>> from wizard.engine import WizardGame
>>> game = WizardGame(4, seed=5)
>>> obs = game.observation(game.current_player)
>>> TableWeight(low=0.5, high=0.8, prior=0.5).weight(obs, seed=1)  # nothing played yet
0.65
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass

from wizard.engine import Observation, RoundResult
from wizard.engine.rules import legal_cards_mask

from .plays import ObservedPlay, finished_plays, observed_plays
from .rollout import heuristic_choice
from .worlds import Knowledge, sample_hands

#: the share of heuristic players' informative plays some sampled deal explains (measured)
EXPLAINED_IF_HEURISTIC = 0.98
#: the share of OI's (measured; people are taken to play more like OI than like the heuristic)
EXPLAINED_OTHERWISE = 0.6


def explained_plays(observation: Observation, deals: list[list[int]]) -> tuple[int, int]:
    """``(explained, informative)`` over the other seats' plays of this round (see the module).

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=5)
    >>> explained_plays(game.observation(game.current_player), [[0, 0, 0, 0]])
    (0, 0)
    """
    trump = observation.trump_suit.index if observation.trump_suit is not None else -1
    return _explained(observed_plays(observation), deals, trump, observation.num_players)


@functools.lru_cache(maxsize=1024)
def finished_reading(result: RoundResult, observer: int | None) -> tuple[int, int]:
    """``(explained, informative)`` over a finished round's plays by the seats other than
    ``observer``, with the hands each held (a finished round shows them all): one deal,
    the true one. Kept per round: a game's later decisions read its earlier rounds again.

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(3, seed=2)
    >>> while len(game.round_history) < 3:
    ...     _ = game.apply(game.current_player, game.legal_actions()[0])
    >>> [finished_reading(r, 0) for r in game.round_history]
    [(0, 0), (2, 2), (3, 4)]
    """
    trump = result.trump_suit.index if result.trump_suit is not None else -1
    n = len(result.bids)
    return _explained(finished_plays(result, observer), [[0] * n], trump, n)


def game_reading(observation: Observation) -> tuple[int, int]:
    """`finished_reading` summed over the game's finished rounds, for the observer."""
    explained = informative = 0
    for result in observation.round_history:
        x, m = finished_reading(result, observation.player)
        explained += x
        informative += m
    return explained, informative


def _explained(plays: list[ObservedPlay], deals: list[list[int]], trump: int,
               n: int) -> tuple[int, int]:
    explained = informative = 0
    for play in plays:
        choice = hit = False
        seen: set[int] = set()
        for hands in deals:
            legal = legal_cards_mask(hands[play.seat] | play.later, play.lead)
            if legal in seen or legal.bit_count() <= 1:
                continue
            seen.add(legal)
            choice = True
            if heuristic_choice(legal, list(play.trick), trump, play.lead, play.needed,
                                n) == play.card:
                hit = True
                break
        informative += choice
        explained += hit
    return explained, informative


def heuristic_belief(explained: int, informative: int, prior: float) -> float:
    """P(the other seats play like the heuristic) after ``explained`` of ``informative`` plays.

    >>> heuristic_belief(0, 0, 0.5)
    0.5
    >>> heuristic_belief(8, 8, 0.5) > 0.95, heuristic_belief(6, 8, 0.5) < 0.05
    (True, True)
    """
    if not 0.0 < prior < 1.0:
        raise ValueError(f"the prior belief must be within (0, 1), got {prior!r}")
    h, o = EXPLAINED_IF_HEURISTIC, EXPLAINED_OTHERWISE
    log_odds = (math.log(prior / (1.0 - prior)) + explained * math.log(h / o)
                + (informative - explained) * math.log((1.0 - h) / (1.0 - o)))
    if log_odds < -700.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-log_odds))


@dataclass(frozen=True, slots=True)
class TableWeight:
    """The weight of the prior, read from the table (see the module).

    Raises `ValueError` for weights outside 0–1, ``low > high``, a prior belief
    outside (0, 1) or fewer than one deal.
    """

    low: float = 0.5
    high: float = 0.8
    prior: float = 0.2
    deals: int = 64
    game: bool = False  # the game's finished rounds may tell it too (see the module)

    def __post_init__(self) -> None:
        if not 0.0 <= self.low <= self.high <= 1.0:
            raise ValueError(f"table weights need 0 <= low <= high <= 1, got "
                             f"{self.low!r}, {self.high!r}")
        if not 0.0 < self.prior < 1.0:
            raise ValueError(f"the prior belief must be within (0, 1), got {self.prior!r}")
        if type(self.deals) is not int or self.deals < 1:
            raise ValueError(f"a table weight needs at least 1 deal, got {self.deals!r}")

    def weight(self, observation: Observation, seed: int) -> float:
        """The prior's weight for this decision of the observer's."""
        return self.at(self.reading(observation, seed)[0])

    def reading(self, observation: Observation, seed: int) -> tuple[float, int]:
        """``(belief, informative plays it rests on)``: P(the other seats play like the
        heuristic) at this decision, from this round's plays (and with ``game`` the game's
        finished rounds, the larger belief), and how many plays said something."""
        explained, informative = _round_reading(observation, seed, self.deals)
        belief = heuristic_belief(explained, informative, self.prior)
        if self.game:
            earlier = game_reading(observation)
            informative += earlier[1]
            belief = max(belief, heuristic_belief(explained + earlier[0], informative,
                                                  self.prior))
        return belief, informative

    def at(self, belief: float) -> float:
        """The prior's weight at ``belief`` that the other seats play like the heuristic.

        >>> TableWeight(low=0.5, high=0.8).at(1.0)
        0.5
        """
        return round(self.high - (self.high - self.low) * belief, 12)


def round_reading(observation: Observation, seed: int, deals: int) -> tuple[int, int]:
    """`explained_plays` of this round over ``deals`` deals drawn from the observation and
    ``seed`` (the same position draws the same deals); ``(0, 0)`` before any play."""
    if not observed_plays(observation):
        return 0, 0
    key = (observation.round_number, len(observation.played_cards), observation.player)
    rng = random.Random(f"table:{seed}:{key}")
    knowledge = Knowledge.of(observation)
    return explained_plays(observation, [sample_hands(knowledge, rng) for _ in range(deals)])


@functools.lru_cache(maxsize=8)
def _round_reading(observation: Observation, seed: int, deals: int) -> tuple[int, int]:
    # kept for a few decisions: the master's search reads the table for its worlds and
    # again for its blend, ~1 ms each at a card decision
    return round_reading(observation, seed, deals)


#: a prior weight: fixed, or read from the table
PriorWeight = float | TableWeight


def weight_at(weight: PriorWeight, observation: Observation, seed: int) -> float:
    """The number ``weight`` stands for at this decision.

    >>> from wizard.engine import WizardGame
    >>> game = WizardGame(4, seed=5)
    >>> weight_at(0.8, game.observation(game.current_player), seed=1)
    0.8
    """
    if isinstance(weight, TableWeight):
        return weight.weight(observation, seed)
    return weight


__all__ = ["EXPLAINED_IF_HEURISTIC", "EXPLAINED_OTHERWISE", "PriorWeight", "TableWeight",
           "explained_plays", "finished_reading", "game_reading", "heuristic_belief",
           "round_reading", "weight_at"]
