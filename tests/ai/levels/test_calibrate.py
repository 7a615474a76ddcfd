"""`wizard calibrate`: each level ahead of the one below; a quick version and the full one."""

from __future__ import annotations

import json

import pytest

from wizard.__main__ import main
from wizard.ai.levels.calibrate import LEVEL_PAIRS, calibrate_pair


def test_master_is_far_ahead_of_easy() -> None:
    result = calibrate_pair("bot:master", "bot:easy", games=8, seed=5, jobs=2)
    assert result.games == 8 and result.margin == 200
    assert result.lead.mean >= 200 and result.passed, result
    assert result.upper_ms > result.lower_ms  # the search thinks, the easy bot does not


@pytest.mark.slow
def test_every_level_leads_the_level_below_by_30_points_and_surely_ahead() -> None:
    # the lead's own interval (paired deal by deal) above 0; master leads hard by about 50
    # since hard plays the learned policy v3 (bot version 8, 100 games: +64.7 [42.0, 87.4]),
    # which takes more games than the far-apart lower pairs to tell at 95 %
    for (upper, lower), games in zip(LEVEL_PAIRS[:3], (16, 16, 32), strict=True):
        result = calibrate_pair(upper, lower, games=games, seed=2, jobs=2)
        assert result.lead.mean >= result.margin and result.lead.low > 0, result


def test_the_command_prints_the_table_and_refuses_bad_input(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "--games", "4", "--pairs", "medium:easy", "--quiet",
                 "--json"]) in (0, 1)
    (row,) = json.loads(capsys.readouterr().out)
    assert row["upper"] == "bot:medium" and row["games"] == 4
    assert main(["calibrate", "--games", "0"]) == 2
    assert "games must be at least 1" in capsys.readouterr().err
    assert main(["calibrate", "--pairs", "master", "--quiet"]) == 2
    assert "UPPER:LOWER" in capsys.readouterr().err
    assert main(["calibrate", "--pairs", "master:godlike", "--quiet"]) == 2
    assert "unknown agent 'bot:godlike'" in capsys.readouterr().err


def test_the_help_explains_the_pass_rule(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["calibrate", "--help"])
    assert exit_info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "30 points per game (master over easy: 200) with 95 percent intervals" in text
