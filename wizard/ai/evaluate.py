"""Fair evaluation of agents: duplicate format, as in duplicate bridge.

Each deal (a game seed: every round's cards and the first dealer) is played once
per seat rotation, so every agent holds every hand from every seat. Deals are
derived from ``seed`` and the deal number, agents are re-seeded from the seed,
deal and rotation, so the numbers do not depend on ``jobs``.

Standard errors are computed over deals (the mean of a deal's rotations is one
independent sample); the 95 % interval is mean ± 1.96 standard errors. An agent's
``margin`` is its score minus the mean score of the agents of other names, paired
by deal (both played the same cards), so its interval is the one a "who is ahead"
claim needs; it is 0 where every agent has the same name.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, TextIO

from tqdm import tqdm

from wizard.engine import GameOptions, WizardGame, total_rounds

from .agents import Agent
from .registry import make_agent

AgentSpec = str | Agent


@dataclass(frozen=True, slots=True)
class AgentResult:
    name: str
    mean: float
    stderr: float
    ci95: tuple[float, float]
    win_rate: float
    bid_accuracy: float
    margin: float = 0.0  # over the other names' mean, paired by deal (the module docstring)
    margin_ci95: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True, slots=True)
class EvaluationResult:
    agents: tuple[AgentResult, ...]
    games: int
    deals: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "agents": [{**asdict(a), "ci95": list(a.ci95), "margin_ci95": list(a.margin_ci95)}
                       for a in self.agents],
            "games": self.games,
            "deals": self.deals,
        }


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game of one deal, by agent index (not seat)."""

    deal: int
    rotation: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    exact_bids: tuple[int, ...]
    rounds: int


def deal_seed(seed: int, deal: int) -> int:
    """The game seed of deal number ``deal`` of an evaluation with ``seed``."""
    return random.Random(f"evaluate:{seed}:{deal}").getrandbits(63)


def _agent_seed(seed: int, deal: int, rotation: int, index: int) -> int:
    return random.Random(f"agent:{seed}:{deal}:{rotation}:{index}").getrandbits(63)


def _build(specs: Sequence[AgentSpec]) -> list[Agent]:
    return [make_agent(s) if isinstance(s, str) else s for s in specs]


def play_deal(
    agents: Sequence[Agent], deal: int, seed: int, options: GameOptions
) -> list[GameRecord]:
    """Play one deal in every rotation: in rotation r, seat s holds agent (s + r) mod n."""
    n = len(agents)
    game_seed = deal_seed(seed, deal)
    records = []
    for rotation in range(n):
        for index, agent in enumerate(agents):
            agent.reset(_agent_seed(seed, deal, rotation, index))
        seat_agent = [(s + rotation) % n for s in range(n)]
        game = WizardGame(n, options, seed=game_seed)
        while not game.is_finished:
            player = game.current_player
            assert player is not None
            action = agents[seat_agent[player]].act(game.observation(player))
            game.apply(player, action)
        scores = [0] * n
        exact = [0] * n
        for seat in range(n):
            scores[seat_agent[seat]] = game.scores[seat]
            exact[seat_agent[seat]] = sum(
                r.bids[seat] == r.tricks[seat] for r in game.round_history
            )
        records.append(GameRecord(
            deal=deal,
            rotation=rotation,
            scores=tuple(scores),
            winners=tuple(sorted(seat_agent[s] for s in game.winners())),
            exact_bids=tuple(exact),
            rounds=game.total_rounds,
        ))
    return records


_worker_agents: list[Agent] = []


def _init_worker(specs: Sequence[AgentSpec]) -> None:
    global _worker_agents
    _worker_agents = _build(specs)


def _worker_play(args: tuple[int, int, dict[str, bool | int | None]]) -> list[GameRecord]:
    deal, seed, options = args
    return play_deal(_worker_agents, deal, seed, GameOptions.from_dict(options))


def iter_records(
    specs: Sequence[AgentSpec],
    deals: int,
    *,
    options: GameOptions,
    seed: int,
    jobs: int = 1,
) -> Iterator[list[GameRecord]]:
    """The records of each deal, in deal order, whatever ``jobs`` is."""
    if jobs <= 1:
        agents = _build(specs)
        for deal in range(deals):
            yield play_deal(agents, deal, seed, options)
        return
    with ProcessPoolExecutor(jobs, initializer=_init_worker, initargs=(list(specs),)) as pool:
        work = [(deal, seed, options.to_dict()) for deal in range(deals)]
        yield from pool.map(_worker_play, work, chunksize=max(1, deals // (jobs * 8)))


def summarize(names: Sequence[str], records: Sequence[GameRecord]) -> EvaluationResult:
    """Aggregate game records into per-agent statistics (see the module docstring)."""
    n = len(names)
    deals = sorted({r.deal for r in records})
    by_deal: dict[int, list[GameRecord]] = {d: [] for d in deals}
    for record in records:
        by_deal[record.deal].append(record)
    results = []
    means = [[sum(r.scores[index] for r in rs) / len(rs) for rs in by_deal.values()]
             for index in range(n)]
    for index, name in enumerate(names):
        per_deal = means[index]
        mean, stderr = _mean_stderr(per_deal)
        others = [means[i] for i in range(n) if names[i] != name]
        margin, margin_stderr = _mean_stderr(
            [x - sum(o[d] for o in others) / len(others) for d, x in enumerate(per_deal)]
            if others else [0.0] * len(per_deal))
        wins = sum(index in r.winners for r in records)
        exact = sum(r.exact_bids[index] for r in records)
        rounds = sum(r.rounds for r in records)
        results.append(AgentResult(
            name=name,
            mean=mean,
            stderr=stderr,
            ci95=(mean - 1.96 * stderr, mean + 1.96 * stderr),
            win_rate=wins / len(records),
            bid_accuracy=exact / rounds,
            margin=margin,
            margin_ci95=(margin - 1.96 * margin_stderr, margin + 1.96 * margin_stderr),
        ))
    assert len(results) == n
    return EvaluationResult(agents=tuple(results), games=len(records), deals=len(deals))


def _mean_stderr(samples: Sequence[float]) -> tuple[float, float]:
    """The mean of per-deal samples and its standard error (NaN from a single deal)."""
    mean = sum(samples) / len(samples)
    if len(samples) < 2:
        return mean, float("nan")
    variance = sum((x - mean) ** 2 for x in samples) / (len(samples) - 1)
    return mean, math.sqrt(variance / len(samples))


def evaluate(
    agents: Sequence[AgentSpec],
    games: int,
    options: GameOptions | None = None,
    seed: int | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> EvaluationResult:
    """Play ``games`` games (deals × rotations, rounded up to whole deals) and summarize.

    ``agents`` are agent names (built with `make_agent`; needed for ``jobs`` > 1
    unless the agents pickle) or agent objects. ``options.rounds`` plays short games.
    Raises `ValueError` for fewer than 3 or more than 6 agents, fewer than 1 game or
    more rounds than the agents' game has (`total_rounds`), and whatever `make_agent`
    raises for a name (`PolicyError` for a ``model`` whose file is missing),
    before any game is played.

    >>> result = evaluate(["heuristic", "random", "random"], games=3, seed=1)
    >>> result.games, result.agents[0].name
    (3, 'heuristic')
    """
    n = len(agents)
    if not 3 <= n <= 6:
        raise ValueError(f"evaluate needs 3-6 agents, got {n}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    options = options or GameOptions()
    total_rounds(n, options.rounds)
    seed = 0 if seed is None else seed
    if jobs > 1:
        _build(agents)  # refuse a bad agent here, not inside a worker process
    deals = math.ceil(games / n)
    names = [a if isinstance(a, str) else a.name for a in agents]
    records: list[GameRecord] = []
    for deal_records in iter_records(agents, deals, options=options, seed=seed, jobs=jobs):
        records.extend(deal_records)
        if progress:
            progress(len(records), deals * n)
    return summarize(names, records)


class ProgressBar:
    """Games played so far as a `tqdm` bar on ``stream`` (stderr); a progress callback.

    >>> import io
    >>> bar = ProgressBar(io.StringIO())
    >>> bar(3, 6); bar(6, 6)
    >>> bar.done
    True
    """

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self.stream = stream
        self._bar: Any = None
        self.done = False

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            # not a terminal (a log file): a line every few seconds, not every game
            self._bar = tqdm(total=total, unit="game", file=self.stream, dynamic_ncols=True,
                             mininterval=0.1 if self.stream.isatty() else 5.0)
        self._bar.update(done - self._bar.n)
        if done >= total:
            self._bar.close()
            self.done = True
