"""Pieces the ``wizard train`` subcommands share (torch-free).

>>> sizes = int_list("hidden sizes", "256,256", 1)
>>> sizes("128, 64")
(128, 64)
>>> sizes("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: hidden sizes must be numbers of at least 1 like 256,256, got '0'
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable


def int_list(what: str, example: str, low: int,
             high: int | None = None) -> Callable[[str], tuple[int, ...]]:
    """An argparse type: comma-separated ints from ``low`` to ``high`` (``None``: no top)."""
    bounds = f"of at least {low}" if high is None else f"{low}-{high}"
    message = f"{what} must be numbers {bounds} like {example}"

    def parse(text: str) -> tuple[int, ...]:
        try:
            values = tuple(int(part) for part in text.split(",") if part.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{message}, got {text!r}") from None
        if not values or min(values) < low or (high is not None and max(values) > high):
            raise argparse.ArgumentTypeError(f"{message}, got {text!r}")
        return values

    return parse


def points_per_logit(text: str) -> float:
    """An argparse type: a card lookahead's points per logit, 0 (none) or more.

    >>> points_per_logit("20")
    20.0
    """
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1e6:
        raise argparse.ArgumentTypeError(f"points per logit must be a number, 0 (no lookahead) "
                                         f"or more, like 20, got {text!r}")
    return value


def units(text: str) -> int:
    """An argparse type: a layer's number of units, 0 (no layer) or more.

    >>> units("64")
    64
    >>> units("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: units must be a whole number, 0 (none) or more, like 64, got '-1'
    """
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"units must be a whole number, 0 (none) or more, "
                                         f"like 64, got {text!r}")
    return value


def command_line(default: str) -> str:
    """The command that runs now, for a run's history (``default`` when not ``wizard train``)."""
    if sys.argv[1:2] != ["train"]:
        return default
    return "wizard " + " ".join(shlex.quote(a) for a in sys.argv[1:])


__all__ = ["command_line", "int_list", "points_per_logit"]
