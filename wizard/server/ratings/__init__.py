"""Ratings and profiles: OpenSkill ratings over finished games, the leaderboard, profiles.

Ratings are derived data: `wizard.server.storage.ratings` rates a game in the
transaction that stores its end, and rebuilds every rating from the stored games
(``wizard ratings rebuild``). `model` is the rating model and its scale, `api` the
``/api/leaderboard`` and ``/api/players/{name}`` routes, `cli` the command.
"""
