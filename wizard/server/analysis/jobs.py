"""Game analysis as a bounded background job: ``analyse`` and ``GET /api/games/{id}/analysis``.

A request names a finished game. Every seat of a public game may be analysed
by anyone; of a private game, its players get the seats they played, and whoever
else may open it — its spectators, or a request carrying its table's invite —
every seat (as on a watched game; see `wizard.server.storage.visibility`). Seats
already analysed by today's judge (`wizard.ai.analysis.JUDGE_VERSION`) come from
`AnalysisStore` at once; the others, an earlier judge's included, become one job,
which runs in slices of a few decisions (`wizard.ai.analysis.analyse_slice`) in a background worker
process beside the inference pool's live workers (`runners.ProcessRunner`): it never
takes a live decision and runs at the lowest CPU priority (niceness 19,
``SCHED_IDLE`` on Linux), so live games come first. (Slices on the live
workers raised live bots' p99 from 107 to 705 ms in `scripts/bench_analysis.py`;
see docs/performance.md.) At most ``concurrency`` jobs run at a time (one game
per worker), at most ``max_queue`` wait (else ``error analysis_busy``) and a player has at most
``per_player`` jobs queued or running (else ``error analysis_limit``). A job
past ``max_seconds`` fails (``analysis_progress`` state ``failed``).

With or without a pool (``WIZARD_AI_WORKERS=0``) the slices never run on the
event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from wizard.ai.analysis import (
    BLUNDER,
    MISTAKE,
    AnalysisBudget,
    GameRecord,
    build_report,
    by_current_judge,
)
from wizard.protocol import (
    Analyse,
    Analysis,
    AnalysisProgress,
    AnalysisState,
    ErrorCode,
    ProtocolError,
)

from ..clock import loop_time
from ..net.connection import Connection
from ..net.responses import error_response, json_response
from ..settings import Settings
from ..storage.analyses import AnalysisStore
from ..storage.history import game_record
from ..storage.records import GameStatus, StoredGame
from ..storage.store import SqliteStore
from ..storage.visibility import bearer_token, may_view, played_in
from .runners import SliceRunner

log = structlog.get_logger(__name__)

PROGRESS_EVERY_S = 0.2  # progress messages to one job's watchers at most this often
WAITING_AFTER_S = 1.0  # a slice not started after this long: "waiting" (live games first)
THRESHOLDS = {"mistake": MISTAKE, "blunder": BLUNDER}
_DEFAULTS = Settings()  # the one place the defaults live


@dataclass(frozen=True, slots=True)
class AnalysisSettings:
    """Bounds of the analysis jobs: the ``analysis_*`` fields of the server's `Settings`."""

    max_queue: int = _DEFAULTS.analysis_queue  # jobs waiting; one more -> analysis_busy
    per_player: int = _DEFAULTS.analysis_per_player  # queued or running per player
    worlds: int = _DEFAULTS.analysis_worlds  # sampled worlds per decision
    max_seconds: float = _DEFAULTS.analysis_seconds  # a job running longer fails
    slice_seconds: float = _DEFAULTS.analysis_slice_seconds  # one slice in a worker
    concurrency: int = 0  # jobs running at once; 0: one per pool worker

    def __post_init__(self) -> None:
        if self.max_queue < 0 or self.per_player < 1 or self.concurrency < 0:
            raise ValueError("analysis bounds: max_queue >= 0, per_player >= 1, "
                             "concurrency >= 0")
        if self.slice_seconds <= 0:
            raise ValueError("WIZARD_ANALYSIS_SLICE_SECONDS must be positive")
        AnalysisBudget(self.worlds, self.max_seconds)  # raises for a bad budget

    @staticmethod
    def of(settings: Settings) -> AnalysisSettings:
        """The analysis bounds of ``settings`` (``WIZARD_ANALYSIS_*``, ``--analysis-*``)."""
        return AnalysisSettings(max_queue=settings.analysis_queue,
                                per_player=settings.analysis_per_player,
                                worlds=settings.analysis_worlds,
                                max_seconds=settings.analysis_seconds,
                                slice_seconds=settings.analysis_slice_seconds)

    @staticmethod
    def from_env(environ: Mapping[str, str] = os.environ) -> AnalysisSettings:
        """The bounds `Settings.from_env` reads; raises `ValueError` naming a bad variable."""
        return AnalysisSettings.of(Settings.from_env(environ))


@dataclass(eq=False)
class Job:
    """One game's analysis of some seats, and who waits for it."""

    game_id: str
    seats: tuple[int, ...]
    owner: str
    record: dict[str, Any]
    watchers: dict[Connection, tuple[int, ...]] = field(default_factory=dict)
    state: AnalysisState = AnalysisState.QUEUED
    done: int = 0
    total: int = 0
    task: asyncio.Task[None] | None = None
    last_progress: float = float("-inf")  # on the loop's clock


class AnalysisService:
    """The jobs, their bounds, the ``analyse`` handler and the HTTP route."""

    def __init__(self, store: SqliteStore, runner: SliceRunner,
                 settings: AnalysisSettings | None = None) -> None:
        self.store = store
        self.results = AnalysisStore(store)
        self.runner = runner
        self.settings = settings or AnalysisSettings()
        self.jobs: dict[tuple[str, tuple[int, ...]], Job] = {}
        self.queue: list[Job] = []  # jobs waiting for a slot, oldest first
        self._slots = asyncio.Semaphore(self.settings.concurrency or runner.workers)
        self.completed = 0
        self.failed = 0

    def samples(self) -> list[tuple[tuple[str, ...], float]]:
        """``wizard_analysis_jobs{state}``: queued and running jobs, completed and failed ones."""
        running = len(self.jobs) - len(self.queue)
        return [(("queued",), float(len(self.queue))), (("running",), float(running)),
                (("completed",), float(self.completed)), (("failed",), float(self.failed))]

    # --- who may see what ---------------------------------------------------------------

    async def _game(self, game_id: str) -> StoredGame:
        stored = await self.store.game(game_id)
        if stored is None or stored.problem is not None:
            raise ProtocolError(ErrorCode.NO_SUCH_GAME, f"no game {game_id!r}")
        if stored.status is not GameStatus.FINISHED:
            raise ProtocolError(ErrorCode.NOT_FINISHED, f"game {game_id!r} is not finished")
        return stored

    @staticmethod
    def visible_seats(stored: StoredGame, player_id: str | None,
                      invite: str | None = None) -> list[int]:
        """Every seat of a public game; of a private one, the seats ``player_id`` played,
        or every seat for its spectators and holders of its invite; else none."""
        everyone = list(range(len(stored.seats)))
        if not stored.private:
            return everyone
        mine = played_in(stored, player_id)
        if mine:
            return mine
        return everyone if may_view(stored, player_id, invite) else []

    @staticmethod
    def refused() -> ProtocolError:
        return ProtocolError(ErrorCode.INVITE_REQUIRED,
                             "this game was played at a private table: analyse it from its "
                             "link (it carries the invite) or as one of its players")

    # --- the websocket request ----------------------------------------------------------

    async def handle(self, connection: Connection, message: Analyse) -> None:
        """``analyse {game_id}``: the stored analysis at once, or a job with progress."""
        player = connection.player
        assert player is not None
        stored_game = await self._game(message.game_id)
        seats = self.visible_seats(stored_game, player.player_id, message.invite)
        if not seats:
            raise self.refused()
        record = game_record(stored_game)
        stored = await self.results.seats(message.game_id)
        # a seat judged by an earlier master is analysed again (and its report replaced)
        missing = tuple(s for s in seats if s not in stored or not by_current_judge(stored[s]))
        if not missing:
            connection.send(self._analysis(message.game_id, [stored[s] for s in seats]))
            return
        key = (message.game_id, missing)
        job = self.jobs.get(key)
        if job is None:
            self._admit(player.player_id)
            job = Job(message.game_id, missing, player.player_id, record)
            job.total = GameRecord.from_dict(record).decisions_of(missing)
            self.jobs[key] = job
            self.queue.append(job)
            job.task = asyncio.get_running_loop().create_task(self._run(job))
            log.info("analysis_queued", game_id=job.game_id, seats=list(missing),
                     player_id=player.player_id, queued=len(self.queue))
        job.watchers[connection] = tuple(seats)
        connection.send(self._progress(job))

    def _admit(self, player_id: str) -> None:
        if len(self.queue) >= self.settings.max_queue:
            raise ProtocolError(ErrorCode.ANALYSIS_BUSY,
                                f"{len(self.queue)} analyses are waiting already; try again "
                                "in a few minutes")
        mine = sum(1 for job in self.jobs.values() if job.owner == player_id)
        if mine >= self.settings.per_player:
            raise ProtocolError(ErrorCode.ANALYSIS_LIMIT,
                                f"you have {mine} analysis in progress; wait for it to finish")

    def _progress(self, job: Job, reason: str | None = None) -> AnalysisProgress:
        position = self.queue.index(job) + 1 if job in self.queue else None
        return AnalysisProgress(job.game_id, job.state, job.done, job.total, position, reason)

    def _analysis(self, game_id: str, seats: list[dict[str, Any]]) -> Analysis:
        worlds = seats[0].get("worlds", self.settings.worlds) if seats else self.settings.worlds
        return Analysis(game_id, worlds, THRESHOLDS, seats)

    def _tell(self, job: Job, force: bool = False) -> None:
        now = loop_time()
        if not force and now - job.last_progress < PROGRESS_EVERY_S:
            return
        job.last_progress = now
        message = self._progress(job)
        for connection in job.watchers:
            connection.send(message)

    # --- running a job --------------------------------------------------------------------

    async def _run(self, job: Job) -> None:
        key = (job.game_id, job.seats)
        try:
            async with self._slots:
                self.queue.remove(job)
                for waiting in self.queue:
                    self._tell(waiting, force=True)  # positions moved up
                job.state = AnalysisState.RUNNING
                self._tell(job, force=True)
                reports = await self._analyse(job)
            await self.results.save(job.game_id, self.settings.worlds, reports)
            stored = await self.results.seats(job.game_id)
            for connection, seats in job.watchers.items():
                connection.send(self._analysis(job.game_id,
                                               [stored[s] for s in seats if s in stored]))
            self.completed += 1
            log.info("analysis_done", game_id=job.game_id, seats=list(job.seats),
                     decisions=job.total)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.failed += 1
            reason = str(exc) if isinstance(exc, TimeoutError) else "the analysis failed"
            log.warning("analysis_failed", game_id=job.game_id, error=repr(exc))
            job.state = AnalysisState.FAILED
            message = self._progress(job, reason)
            for connection in job.watchers:
                connection.send(message)
        finally:
            if job in self.queue:
                self.queue.remove(job)
            self.jobs.pop(key, None)

    async def _analyse(self, job: Job) -> list[dict[str, Any]]:
        settings = self.settings
        began = loop_time()
        decisions: list[dict[str, Any]] = []
        while True:
            if loop_time() - began > settings.max_seconds:
                raise TimeoutError(f"the analysis took longer than {settings.max_seconds:g} s")
            args = (job.record, list(job.seats), settings.worlds, len(decisions),
                    settings.slice_seconds)
            part = asyncio.ensure_future(self.runner.run(args))
            while True:
                finished, _ = await asyncio.wait({part}, timeout=WAITING_AFTER_S)
                if finished:
                    break
                if self.runner.live_busy() and job.state is not AnalysisState.WAITING:
                    job.state = AnalysisState.WAITING
                    self._tell(job, force=True)
            _, total, new = part.result()
            decisions += new
            job.done, job.total, job.state = len(decisions), total, AnalysisState.RUNNING
            self._tell(job)
            if len(decisions) >= total:
                break
        record = GameRecord.from_dict(job.record)
        report = build_report(record, job.seats, decisions, AnalysisBudget(settings.worlds))
        for seat in report["seats"]:
            seat["worlds"] = settings.worlds
        seats: list[dict[str, Any]] = report["seats"]
        return seats

    async def close(self) -> None:
        """Cancel every job (nothing half-done is stored) and stop the runner."""
        tasks = [job.task for job in self.jobs.values() if job.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.runner.close()

    # --- HTTP -----------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        return [Route("/api/games/{game_id}/analysis", self.http_analysis)]

    async def http_analysis(self, request: Request) -> Response:
        """``GET /api/games/{id}/analysis``: the stored analysis (never starts one).

        A private game's seats need ``Authorization: Bearer <token>`` of a player
        or spectator of it, or ``?invite=`` (its table's invite).
        """
        game_id = request.path_params["game_id"]
        try:
            stored_game = await self._game(game_id)
        except ProtocolError as exc:
            status = 404 if exc.code is ErrorCode.NO_SUCH_GAME else 409
            return error_response(status, exc.code.value, exc.message)
        player_id = None
        token = bearer_token(request.headers.get("authorization"))
        if token:
            known = await self.store.known_player(token)
            player_id = known[0] if known else None
        seats = self.visible_seats(stored_game, player_id, request.query_params.get("invite"))
        if not seats:
            refused = self.refused()
            return error_response(403, refused.code.value, refused.message)
        stored = await self.results.seats(game_id)
        if all(s in stored for s in seats):
            message = self._analysis(game_id, [stored[s] for s in seats])
            return json_response({"game_id": game_id, "status": "done", "worlds": message.worlds,
                                  "thresholds": message.thresholds, "seats": message.seats})
        running = [job for job in self.jobs.values() if job.game_id == game_id]
        if running:
            job = running[0]
            progress = [stored[s] for s in seats if s in stored]
            return json_response({"game_id": game_id, "status": job.state, "done": job.done,
                                  "total": job.total, "seats": progress}, 202)
        return error_response(404, "not_analysed",
                              "this game has not been analysed yet: send analyse {game_id}")


__all__ = ["AnalysisService", "AnalysisSettings"]
