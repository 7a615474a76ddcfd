"""Level calibration: two seats of a level against two of the level below, duplicate deals.

For each pair (upper, lower) 4-player games are played with the seats
``upper, lower, upper, lower`` in every rotation of every deal (`play_deal`),
so both levels hold every hand from every seat. A pair's result per deal is
the mean over its rotations of (mean score of the upper seats − mean score of
the lower seats); its 95 % interval is mean ± 1.96 standard errors over deals.
Each level's own mean and interval are computed the same way. A pair passes
when the upper level is at least ``margin`` points per game ahead and the two
levels' intervals do not overlap. Every decision is timed (CPU time), per level.

>>> result = calibrate([("bot:medium", "bot:easy")], games=4, seed=1)
>>> result[0].games
4
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from wizard.engine import Action, GameOptions, Observation

from ..agents import Agent
from ..evaluate import GameRecord, play_deal
from ..registry import make_agent

LEVEL_PAIRS: tuple[tuple[str, str], ...] = (
    ("bot:medium", "bot:easy"),
    ("bot:hard", "bot:medium"),
    ("bot:master", "bot:hard"),
    ("bot:master", "bot:easy"),
)
#: points per game the upper level must lead by (master over easy: 200)
MARGINS: dict[tuple[str, str], float] = {("bot:master", "bot:easy"): 200.0}
DEFAULT_MARGIN = 30.0


class _Timed(Agent):
    """An agent that adds up the CPU time its decisions take (of this process, one core)."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name
        self.seconds = 0.0
        self.decisions = 0

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, observation: Observation) -> Action:
        start = time.process_time()
        action = self.inner.act(observation)
        self.seconds += time.process_time() - start
        self.decisions += 1
        return action


@dataclass(frozen=True, slots=True)
class Interval:
    mean: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class PairResult:
    """One pairing: each level's score, the lead of the upper level, decision CPU times (ms)."""

    upper: str
    lower: str
    games: int
    upper_score: Interval
    lower_score: Interval
    lead: Interval
    margin: float
    upper_ms: float
    lower_ms: float
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.lead.mean >= self.margin and self.upper_score.low > self.lower_score.high


def _interval(values: Sequence[float]) -> Interval:
    mean = sum(values) / len(values)
    if len(values) < 2:
        return Interval(mean, float("nan"), float("nan"))
    variance = sum((x - mean) ** 2 for x in values) / (len(values) - 1)
    half = 1.96 * math.sqrt(variance / len(values))
    return Interval(mean, mean - half, mean + half)


def _play(args: tuple[str, str, int, int]) -> tuple[list[GameRecord], list[float], list[int]]:
    upper, lower, deal, seed = args
    agents = [_Timed(make_agent(name)) for name in (upper, lower, upper, lower)]
    records = play_deal(agents, deal, seed, GameOptions())
    return records, [a.seconds for a in agents], [a.decisions for a in agents]


def calibrate_pair(upper: str, lower: str, games: int, seed: int = 1, jobs: int = 1,
                   progress: Callable[[int, int], None] | None = None) -> PairResult:
    """Play ``games`` games (rounded up to whole deals of 4) of ``upper`` ×2 against ``lower`` ×2.

    Raises `ValueError` for an unknown agent name or fewer than 1 game.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    make_agent(upper), make_agent(lower)  # unknown names fail here, before any work
    deals = math.ceil(games / 4)
    work = [(upper, lower, deal, seed) for deal in range(deals)]
    results: list[tuple[list[GameRecord], list[float], list[int]]] = []
    if jobs <= 1:
        for item in work:
            results.append(_play(item))
            if progress:
                progress(len(results), deals)
    else:
        with ProcessPoolExecutor(jobs) as pool:
            for result in pool.map(_play, work):
                results.append(result)
                if progress:
                    progress(len(results), deals)
    up, low, lead = [], [], []
    seconds = [0.0, 0.0]
    decisions = [0, 0]
    for records, secs, counts in results:
        ups = [(r.scores[0] + r.scores[2]) / 2 for r in records]
        lows = [(r.scores[1] + r.scores[3]) / 2 for r in records]
        up.append(sum(ups) / len(ups))
        low.append(sum(lows) / len(lows))
        lead.append(up[-1] - low[-1])
        for index in range(4):
            seconds[index % 2] += secs[index]
            decisions[index % 2] += counts[index]
    return PairResult(
        upper=upper, lower=lower, games=deals * 4,
        upper_score=_interval(up), lower_score=_interval(low), lead=_interval(lead),
        margin=MARGINS.get((upper, lower), DEFAULT_MARGIN),
        upper_ms=1000 * seconds[0] / max(1, decisions[0]),
        lower_ms=1000 * seconds[1] / max(1, decisions[1]),
    )


def calibrate(pairs: Sequence[tuple[str, str]] = LEVEL_PAIRS, games: int = 200, seed: int = 1,
              jobs: int = 1) -> list[PairResult]:
    """`calibrate_pair` for every pair, in order."""
    return [calibrate_pair(upper, lower, games, seed, jobs) for upper, lower in pairs]


def format_results(results: Sequence[PairResult]) -> str:
    """The calibration table, one line per pair."""
    header = (f"{'upper':<11}{'lower':<11}{'games':>6}{'upper (95% CI)':>24}"
              f"{'lower (95% CI)':>24}{'lead (95% CI)':>24}{'need':>6}{'ms up':>8}"
              f"{'ms low':>8}  ok")
    lines = [header, "-" * len(header)]
    for r in results:
        def show(i: Interval) -> str:
            return f"{i.mean:.1f} [{i.low:.1f}, {i.high:.1f}]"
        lines.append(f"{r.upper:<11}{r.lower:<11}{r.games:>6}{show(r.upper_score):>24}"
                     f"{show(r.lower_score):>24}{show(r.lead):>24}{r.margin:>6.0f}"
                     f"{r.upper_ms:>8.2f}{r.lower_ms:>8.2f}  {'yes' if r.passed else 'NO'}")
    return "\n".join(lines)


__all__ = ["DEFAULT_MARGIN", "LEVEL_PAIRS", "MARGINS", "Interval", "PairResult", "calibrate",
           "calibrate_pair", "format_results"]
