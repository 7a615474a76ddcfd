#!/usr/bin/env python3
"""Encoding an ``update``: the typed structs against the ``to_dict`` form, one line per figure.

    .venv/bin/python scripts/bench_update.py [--games 8] [--players 4] [--repeats 9]

Both forms encode the same views (every seat and a spectator after every
action of ``--games`` random games with fixed seeds), from the engine's
`Observation` and events to the JSON text a connection sends, in alternating
runs; each figure is the median of ``--repeats`` runs, in CPU microseconds
per update (time.process_time). The script first checks that both forms give
the same bytes for every view.

- ``dict``: ``Observation.to_dict()`` and ``event.to_dict()`` in an update whose
  fields are ``dict[str, Any]`` (the form before the structs);
- ``struct``: `wizard.server.tables.views.update_view` with `update_events`
  (what the server sends).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from wizard.engine import Event, Observation, WizardGame
from wizard.protocol import Clock, ServerMessage, Update, encode
from wizard.server.net.updates import event_view, observation_view

View = tuple[Observation, list[Event]]
CLOCK = Clock(1, 59_870)


class DictUpdate(ServerMessage, tag="update", frozen=True):
    table_id: str
    v: int
    events: list[dict[str, Any]]
    observation: dict[str, Any]
    clock: Clock | None


def views(games: int, players: int) -> list[View]:
    out: list[View] = []
    for seed in range(games):
        game = WizardGame(players, seed=seed)
        rng = random.Random(seed)
        events: list[Event] = list(game.start_events())
        while True:
            out.extend((game.observation(seat), events) for seat in (*range(players), None))
            player = game.current_player
            if player is None:
                break
            events = game.apply(player, rng.choice(game.legal_actions()))
    return out


def dict_form(view: View) -> str:
    observation, events = view
    return encode(DictUpdate("t_Qm9v3c2Ff1xA", 42, [e.to_dict() for e in events],
                             observation.to_dict(), CLOCK))


def struct_form(view: View) -> str:
    observation, events = view
    return encode(Update("t_Qm9v3c2Ff1xA", 42, [event_view(e) for e in events],
                         observation_view(observation), CLOCK))


def per_update_us(form: Callable[[View], str], sample: list[View]) -> float:
    start = time.process_time()
    for view in sample:
        form(view)
    return (time.process_time() - start) / len(sample) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    sample = views(args.games, args.players)
    mismatches = sum(dict_form(v) != struct_form(v) for v in sample)
    if mismatches:
        raise SystemExit(f"{mismatches} of {len(sample)} views encode differently")
    runs: dict[str, list[float]] = {"dict": [], "struct": []}
    for _ in range(args.repeats):
        runs["dict"].append(per_update_us(dict_form, sample))
        runs["struct"].append(per_update_us(struct_form, sample))
    dict_us, struct_us = (statistics.median(runs[k]) for k in ("dict", "struct"))
    print(f"views: {len(sample)} ({args.games} games, {args.players} players), same bytes")
    print(f"update encode, to_dict form: {dict_us:.2f} us (min {min(runs['dict']):.2f})")
    print(f"update encode, structs:      {struct_us:.2f} us (min {min(runs['struct']):.2f})")
    print(f"structs / to_dict: {struct_us / dict_us:.2f}")


if __name__ == "__main__":
    main()
