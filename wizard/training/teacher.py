"""Games played by a teacher agent, turned into training rows (the imitation stage's data).

Every seat is the teacher (any `make_agent` name). To let the tricks head learn
what each bid leads to, a seat bids something else than the teacher now and
then (``explore_bids``: a legal bid within two of the teacher's); its cards
are still the teacher's, which then plays towards that bid.

Rows (numpy arrays, one per kept decision):

- ``features`` float16 — a card or trump decision's features, or a bid's
  features as they read once that bid is made (`with_bid`);
- ``masks`` bool, ``actions`` int16 (the teacher's or explored action);
- ``targets`` float16 — what the policy head learns: the action as a one-hot
  row, or with a ``labeller`` (expert iteration: the master's search) a soft
  target over the candidates it valued, ``softmax(value / soft_temperature)``
  (values in round points; the labeller's best candidate is then played);
- ``imitate`` bool — the policy head learns this action (cards and trump only);
- ``cost`` float16 — the row's weight in the imitation loss: 1, or with
  ``cost_weight`` c for a card decision with a choice ``1 + c · spread / 10``,
  ``spread`` the teacher's (or labeller's) best candidate's expected round points
  minus its worst (``action_scores``): a decision where the wrong card costs much
  counts more than one where every card is as good (cost-sensitive imitation);
- ``tricks`` int8 — tricks the seat ends the round with; ``returns`` float32 —
  its score change of the round / 100.

**Rows after the card** (``after_card_rows``). A policy that plays one card ahead
(`wizard.ai.lookahead`) asks its tricks head about the features as they read once
a card is played: the card in the trick, or the trick just resolved. A seat never
decides in such a state, so decision rows never show them to the head, and it
reads them badly (docs/measurements/ai.md: a log loss of 1.24 after the card
against 0.89 before it). With this option every kept card decision with a
choice also gives the row after the card that was played (`after_card`),
labelled with the same round's tricks and score; the policy head does not learn
from it (``imitate`` false). Those rows show the head only the cards the seat
chose; ``explore_cards`` shows it others: a learner seat plays, at most once a
round, with that chance at each card decision with a choice, a legal card drawn at
random, and that decision gives only its row after the card. The seat's earlier
rows of the round are dropped (the round no longer follows their play).

**The learner at the table** (``learner_seats`` > 0: expert iteration proper,
DAgger's way). A share of the seats (at least one) is played by the net being
trained, exported for the chunk (``learner``, an ONNX file); the other seats are
drawn from ``opponents``. Only the learner's decisions become rows: it plays its own
cards and bids (bids explored as above); its card decisions are labelled by the
teacher's choice in its place (one-hot), or with a ``labeller`` by its values (soft
targets); and the tricks head learns what the learner's own play made of each bid
against those opponents. Without this, a net that imitates a
stronger player's cards but cannot yet play as well learns that player's trick
counts and overbids.

Games are split into chunks played by ``workers`` processes; each chunk has its
own seed, so the teacher's rows do not depend on ``workers`` (the learner's do: a
chunk is played by the net as it stood when the chunk started).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

import numpy as np
import numpy.typing as npt

from wizard.ai.encoding import FEATURE_SIZE, ActionSpace, encode_into
from wizard.ai.lookahead import after_card
from wizard.ai.policy import with_bid
from wizard.ai.registry import make_agent
from wizard.engine import (
    PLAY_BASE,
    Bid,
    GameOptions,
    Observation,
    Phase,
    RoundCompleted,
    WizardGame,
)

ROW_KEYS = ("features", "masks", "actions", "targets", "imitate", "cost", "tricks", "returns")
Rows = dict[str, np.ndarray]
#: a kept decision until its round ends: seat, features, mask, action, target, imitate, cost
Row = tuple[int, np.ndarray, np.ndarray, int, np.ndarray, bool, float]


@dataclass(frozen=True, slots=True)
class TeacherConfig:
    teacher: str = "heuristic"
    explore_bids: float = 0.3
    keep_plays: float = 0.35
    option_games: float = 0.4  # share of games with random rule options (else the defaults)
    labeller: str | None = None  # an agent with `action_scores` (search, oi): soft targets
    soft_temperature: float = 5.0  # points
    learner_seats: float = 0.0  # share of the seats the learner plays (0: the teacher's games)
    opponents: tuple[str, ...] = ()  # agents of the learner's other seats (default: teacher)
    cost_weight: float = 0.0  # > 0: card rows weighted by the spread of the teacher's values
    after_card_rows: bool = False  # each kept card row with a choice: its row after the card
    explore_cards: float = 0.0  # chance of one random card a seat and round (after_card_rows)


class Labeller(Protocol):
    """Values of the candidates of a decision: expected round points per action index."""

    def action_scores(self, observation: Observation) -> dict[int, float]: ...


def soft_target(scores: dict[int, float], temperature: float) -> npt.NDArray[np.float32]:
    """``softmax(score / temperature)`` over the scored action indices, as a row of `ActionSpace`.

    >>> soft_target({21: 10.0, 22: 10.0}, 5.0)[21:23].tolist()
    [0.5, 0.5]
    """
    row = np.zeros(ActionSpace.SIZE, np.float32)
    keys = list(scores)
    values = np.array([scores[k] for k in keys], np.float64) / temperature
    weights = np.exp(values - values.max())
    row[keys] = weights / weights.sum()
    return row


def random_options(rng: random.Random, share: float) -> GameOptions:
    """The default rules, or with probability ``share`` every option flipped by a coin."""
    if rng.random() >= share:
        return GameOptions()
    return GameOptions(hidden_bids=rng.random() < 0.5, forbid_even_bids=rng.random() < 0.5,
                       wizard_trump_dealer_chooses=rng.random() < 0.5)


def _seats(rng: random.Random, players: int, share: float) -> list[bool]:
    """Which seats the learner plays: each with chance ``share``, at least one."""
    seats = [rng.random() < share for _ in range(players)]
    if not any(seats):
        seats[rng.randrange(players)] = True
    return seats


def play_teacher_games(config: TeacherConfig, games: int, seed: int,
                       learner: Path | None = None) -> Rows:
    """Play ``games`` games with the teacher at every seat, or the ``learner`` (an ONNX
    policy file) at some seats with ``config.learner_seats``; their kept rows (see the
    module). Raises `ValueError` for a labeller without values."""
    rng = random.Random(f"teacher:{seed}")
    agent = make_agent(config.teacher, seed=seed)
    labeller: Labeller | None = None
    if config.labeller is not None:
        labeller = cast(Labeller, make_agent(config.labeller, seed=seed))
        if not hasattr(labeller, "action_scores"):
            raise ValueError(f"{config.labeller!r} gives no action_scores to label with")
    valuer = labeller
    if config.cost_weight > 0 and valuer is None:
        if not hasattr(agent, "action_scores"):
            raise ValueError(f"{config.teacher!r} gives no action_scores to weigh rows by")
        valuer = cast(Labeller, agent)
    if config.explore_cards > 0 and not config.after_card_rows:
        raise ValueError("explore_cards needs after_card_rows: its cards give only those rows")
    playing = learner is not None and config.learner_seats > 0
    model = make_agent("model", seed=seed, model_path=learner) if playing else agent
    others = {name: make_agent(name, seed=seed) for name in config.opponents or
              (config.teacher,)} if playing else {}  # the teacher's games need none
    out: dict[str, list[object]] = {key: [] for key in ROW_KEYS}
    buffer = np.zeros(FEATURE_SIZE, np.float32)
    for _ in range(games):
        players = rng.choice((3, 4, 5, 6))
        game = WizardGame(players, random_options(rng, config.option_games),
                          seed=rng.getrandbits(63))
        agent.reset(rng.getrandbits(63))
        learns = _seats(rng, players, config.learner_seats) if playing else [True] * players
        seat_agents = [model if learns[s] else others[rng.choice(sorted(others))]
                       for s in range(players)] if playing else [agent] * players
        for other in {id(a): a for a in seat_agents if a is not agent}.values():
            other.reset(rng.getrandbits(63))
        pending: list[Row] = []
        explored: set[int] = set()  # seats that played a random card this round
        while not game.is_finished:
            seat = game.current_player
            assert seat is not None
            obs = game.observation(seat)
            action = seat_agents[seat].act(obs)
            index = ActionSpace.index(action)
            bidding = obs.phase is Phase.BIDDING
            if learns[seat] and bidding and rng.random() < config.explore_bids:
                assert isinstance(action, Bid)
                near = [a for a in obs.legal_actions
                        if isinstance(a, Bid) and 0 < abs(a.value - action.value) <= 2]
                if near:
                    action = rng.choice(near)
                    index = ActionSpace.index(action)
            explores = (config.explore_cards > 0 and learns[seat] and seat not in explored
                        and obs.phase is Phase.PLAYING and len(obs.legal_actions) > 1
                        and rng.random() < config.explore_cards)
            if explores:
                explored.add(seat)
                pending = [row for row in pending if row[0] != seat]
                action = rng.choice(obs.legal_actions)
                index = ActionSpace.index(action)
                buffer[:] = 0.0
                encode_into(obs, buffer)
                pending.append(_after_row(seat, buffer[None, :], index))
            elif learns[seat] and (bidding or rng.random() < config.keep_plays):
                target = np.zeros(ActionSpace.SIZE, np.float32)
                scores: dict[int, float] = {}
                if valuer is not None and not bidding and len(obs.legal_actions) > 1:
                    scores = valuer.action_scores(obs)
                cost = 1.0
                if config.cost_weight > 0 and len(scores) > 1:
                    spread = max(scores.values()) - min(scores.values())
                    cost += config.cost_weight * spread / 10.0
                if labeller is not None and len(scores) > 1:
                    target = soft_target(scores, config.soft_temperature)
                    if not playing:  # the teacher's games follow the labeller
                        index = max(scores, key=lambda a: (scores[a], a == index))
                        action = ActionSpace.action(index)
                elif playing and not bidding:  # the teacher's choice in the learner's place
                    target[ActionSpace.index(agent.act(obs))] = 1.0
                else:
                    target[index] = 1.0
                buffer[:] = 0.0
                encode_into(obs, buffer)
                features = buffer[None, :]
                if bidding:
                    features = with_bid(features, np.array([index]))
                mask = ActionSpace.mask(obs)
                pending.append((seat, features[0].astype(np.float16), mask,
                                index, target.astype(np.float16), not bidding, cost))
                if config.after_card_rows and obs.phase is Phase.PLAYING and mask.sum() > 1:
                    pending.append(_after_row(seat, features, index))
            for event in game.apply(seat, action):
                if isinstance(event, RoundCompleted):
                    result = event.result
                    for who, features, mask, chosen, target, imitate, cost in pending:
                        out["features"].append(features)
                        out["masks"].append(mask)
                        out["actions"].append(chosen)
                        out["targets"].append(target)
                        out["imitate"].append(imitate)
                        out["cost"].append(cost)
                        out["tricks"].append(result.tricks[who])
                        out["returns"].append(result.score_changes[who] / 100.0)
                    pending = []
                    explored.clear()
    return {
        "features": np.stack(out["features"]).astype(np.float16),  # type: ignore[arg-type]
        "masks": np.stack(out["masks"]).astype(np.bool_),  # type: ignore[arg-type]
        "actions": np.asarray(out["actions"], np.int16),
        "targets": np.stack(out["targets"]).astype(np.float16),  # type: ignore[arg-type]
        "imitate": np.asarray(out["imitate"], np.bool_),
        "cost": np.asarray(out["cost"], np.float16),
        "tricks": np.asarray(out["tricks"], np.int8),
        "returns": np.asarray(out["returns"], np.float32),
    }


def _after_row(seat: int, features: npt.NDArray[np.float32], index: int) -> Row:
    """The row after card ``index`` (an action index) is played from ``features`` (one row):
    for the tricks head only."""
    after, mask = after_card(features, np.array([index - PLAY_BASE]))
    return (seat, after[0].astype(np.float16), mask[0], index,
            np.zeros(ActionSpace.SIZE, np.float16), False, 1.0)


def _chunk(args: tuple[TeacherConfig, int, int, Path | None]) -> Rows:
    return play_teacher_games(*args)


def iter_teacher_chunks(config: TeacherConfig, games: int, seed: int, *, workers: int = 1,
                        chunk: int = 50, learner: Callable[[], Path] | None = None
                        ) -> Iterator[tuple[int, Rows]]:
    """``(games played so far, rows)`` per chunk of ``chunk`` games, in chunk order.

    ``learner`` gives the policy file a chunk's learner seats play, asked when the chunk
    is handed to a worker: each chunk after the first ``workers`` is played by the net as
    trained on the chunks yielded before it (the caller trains between them).
    """
    sizes = [min(chunk, games - start) for start in range(0, games, chunk)]
    work = [(config, size, seed * 1_000_003 + number) for number, size in enumerate(sizes)]
    done = 0
    if workers <= 1:
        for (cfg, size, chunk_seed) in work:
            rows = _chunk((cfg, size, chunk_seed, learner() if learner else None))
            done += size
            yield done, rows
        return
    with ProcessPoolExecutor(workers) as pool:
        queue = iter(work)
        running: deque[tuple[Future[Rows], int]] = deque()

        def hand_out() -> None:
            item = next(queue, None)
            if item is not None:
                cfg, size, chunk_seed = item
                args = (cfg, size, chunk_seed, learner() if learner else None)
                running.append((pool.submit(_chunk, args), size))

        for _ in range(workers):
            hand_out()
        while running:
            future, size = running.popleft()
            rows = future.result()
            done += size
            yield done, rows
            hand_out()


def concat(parts: list[Rows]) -> Rows:
    return {key: np.concatenate([p[key] for p in parts]) for key in ROW_KEYS}
