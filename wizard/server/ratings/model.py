"""The rating model: OpenSkill's Plackett–Luce over a table's final ranking, and its scale.

A player's skill is OpenSkill's ``(mu, sigma)`` (defaults 25 and 25/3). What people
see is one number, the conservative ordinal ``mu - 3 sigma`` on a scale where a
new player stands at 1500 and one unit of ``mu`` is `SCALE` points (OpenSkill's
``beta`` = 25/6 is then 200 points: the Elo-like distance at which the better of
two players wins about three games in four), with the uncertainty ``sigma`` on
the same scale. Until `PROVISIONAL_GAMES` games a rating is provisional.

>>> new = PlayerRating()
>>> display(new), uncertainty(new), is_provisional(0)
(1500, 400, True)
>>> after = rate([new, new, new], [10, 50, 10])
>>> [display(r) for r in after]  # the winner rises, the two tied last stay equal
[1471, 1656, 1471]
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from openskill.models import PlackettLuce

#: points on the shown scale per unit of OpenSkill's mu
SCALE = 48.0
#: a new player's shown rating (ordinal 0)
ORIGIN = 1500.0
#: games before a rating stops being provisional (and enters the leaderboard by default)
PROVISIONAL_GAMES = 10
#: the bot levels, weakest first: players ``bot:<level>`` in the same pool
BOT_LEVELS = ("easy", "medium", "hard", "master")

_MODEL = PlackettLuce()


class PlayerRating(msgspec.Struct, frozen=True):
    """One player's OpenSkill rating."""

    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma


def display(rating: PlayerRating) -> int:
    """The shown rating: the ordinal on the 1500 scale."""
    return round(ORIGIN + SCALE * rating.ordinal)


def uncertainty(rating: PlayerRating) -> int:
    """The shown uncertainty: ``sigma`` on the same scale (a new player's: 400)."""
    return round(SCALE * rating.sigma)


def is_provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def ranks(scores: Sequence[int]) -> list[int]:
    """Competition ranks of final scores (1 is first; equal scores share a rank).

    >>> ranks([30, 90, 30, -10])
    [2, 1, 2, 4]
    """
    return [1 + sum(1 for other in scores if other > score) for score in scores]


def rate(ratings: Sequence[PlayerRating], scores: Sequence[int]) -> list[PlayerRating]:
    """Each seat's rating after a game that ended with ``scores`` (seat by seat), every
    seat a team of one, ranked by score with ties as ties (OpenSkill Plackett–Luce)."""
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    rated = _MODEL.rate(teams, ranks=[float(r) for r in ranks(scores)])
    return [PlayerRating(team[0].mu, team[0].sigma) for team in rated]


def near_level(shown: int, landmarks: dict[str, int]) -> str | None:
    """The bot level whose shown rating is nearest ``shown`` (None without landmarks).

    >>> near_level(1610, {"easy": 1300, "medium": 1500, "hard": 1700})
    'hard'
    """
    if not landmarks:
        return None
    return min(landmarks, key=lambda level: (abs(landmarks[level] - shown),
                                             BOT_LEVELS.index(level)
                                             if level in BOT_LEVELS else 99))


__all__ = [
    "BOT_LEVELS",
    "ORIGIN",
    "PROVISIONAL_GAMES",
    "SCALE",
    "PlayerRating",
    "display",
    "is_provisional",
    "near_level",
    "ranks",
    "rate",
    "uncertainty",
]
