"""Settings: environment, flags, validation, and the CLI built from the same table."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from wizard.server.cli import register
from wizard.server.settings import FIELDS, Settings


def test_defaults() -> None:
    settings = Settings()
    assert (settings.port, settings.max_message_bytes, settings.turn_seconds) == (8000, 8192, 60)
    assert settings.db_path == "./data/wizard.db" and settings.ai_workers >= 1
    assert settings.disconnect_grace_seconds == 30 and settings.idle_close_seconds == 600


def test_environment_then_flags() -> None:
    env = {"WIZARD_PORT": "9001", "WIZARD_BOT_DELAY": "0", "WIZARD_DB": ":memory:",
           "WIZARD_LOG_FORMAT": "console"}
    settings = Settings.from_env(env, {"port": 9002, "host": None})
    assert (settings.port, settings.bot_delay, settings.db_path) == (9002, 0.0, ":memory:")
    assert settings.host == "127.0.0.1" and settings.log_format == "console"


@pytest.mark.parametrize(("env", "name"), [
    ({"WIZARD_PORT": "eighty"}, "WIZARD_PORT"),
    ({"WIZARD_LOG_FORMAT": "xml"}, "WIZARD_LOG_FORMAT"),
    ({"WIZARD_LOG_LEVEL": "loud"}, "WIZARD_LOG_LEVEL"),
])
def test_a_bad_value_names_its_variable(env: dict[str, str], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        Settings.from_env(env)


def test_out_of_range_values_are_refused() -> None:
    with pytest.raises(ValueError, match="turn_seconds"):
        Settings(turn_seconds=-1)
    with pytest.raises(ValueError, match="max_message_bytes"):
        Settings(max_message_bytes=10)


def test_every_setting_has_a_flag_and_a_variable() -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["serve", "--port", "1234", "--bot-delay", "0"])
    assert (args.port, args.bot_delay, args.host) == (1234, 0.0, None)
    assert len({f.env for f in FIELDS}) == len(FIELDS) == len(Settings.__dataclass_fields__)
    assert all(f.env.startswith("WIZARD_") and f.flag.startswith("--") for f in FIELDS)


def test_limit_settings_from_the_environment() -> None:
    env = {"WIZARD_ALLOWED_ORIGINS": "https://Wizard.example/, http://localhost:3000",
           "WIZARD_MAX_CONNECTIONS": "10", "WIZARD_MESSAGES_PER_SECOND": "2.5",
           "WIZARD_WS_PING_INTERVAL": "0"}
    settings = Settings.from_env(env)
    assert settings.allowed_origins == ("https://wizard.example", "http://localhost:3000")
    assert (settings.max_connections, settings.messages_per_second) == (10, 2.5)
    assert settings.ws_ping_interval == 0
    with pytest.raises(ValueError, match="WIZARD_ALLOWED_ORIGINS"):
        Settings.from_env({"WIZARD_ALLOWED_ORIGINS": "wizard.example"})
    with pytest.raises(ValueError, match="max_connections"):
        Settings(max_connections=0)


def test_serve_help_lists_every_setting() -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "wizard", "serve", "--help"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    help_text = " ".join(out.stdout.split())  # argparse wraps lines anywhere
    for field in FIELDS:
        assert field.flag in help_text and field.env in help_text, field.name


def test_evaluate_and_top_level_help_work() -> None:
    import subprocess
    import sys

    for args in (["--help"], ["evaluate", "--help"]):
        out = subprocess.run([sys.executable, "-m", "wizard", *args],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and "usage: wizard" in out.stdout, out.stderr


def test_the_pools_bounds_are_settings_of_the_one_table() -> None:
    from wizard.ai.pool import InferencePool
    from wizard.server.cli import make_decider
    env = {"WIZARD_AI_WORKERS": "3", "WIZARD_AI_MAX_INFLIGHT": "10",
           "WIZARD_AI_DEGRADE_QUEUE": "4", "WIZARD_AI_BATCH_WINDOW_MS": "0.5",
           "WIZARD_AI_MAX_BATCH": "16"}
    pool = make_decider(Settings.from_env(env))
    assert isinstance(pool, InferencePool)  # built, not started: no process yet
    ps = pool.settings
    assert (ps.workers, ps.max_inflight, ps.degrade_queue, ps.batch_window_ms,
            ps.max_batch) == (3, 10, 4, 0.5, 16)
    assert make_decider(Settings.from_env({})).settings.degrade_queue == 32  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="WIZARD_AI_WORKERS"):
        Settings.from_env({"WIZARD_AI_WORKERS": "many"})
    with pytest.raises(ValueError, match="ai_degrade_queue"):
        Settings.from_env({"WIZARD_AI_MAX_INFLIGHT": "8", "WIZARD_AI_DEGRADE_QUEUE": "8"})
    with pytest.raises(ValueError, match="ai_batch_window_ms"):
        Settings(ai_batch_window_ms=5.0)


def test_the_analysis_bounds_are_settings_of_the_one_table() -> None:
    from wizard.server.analysis.jobs import AnalysisSettings
    env = {"WIZARD_ANALYSIS_QUEUE": "3", "WIZARD_ANALYSIS_PER_PLAYER": "2",
           "WIZARD_ANALYSIS_WORLDS": "4", "WIZARD_ANALYSIS_SECONDS": "60",
           "WIZARD_ANALYSIS_SLICE_SECONDS": "0.1"}
    bounds = AnalysisSettings.of(Settings.from_env(env, {"analysis_worlds": 6}))
    assert (bounds.max_queue, bounds.per_player, bounds.worlds, bounds.max_seconds,
            bounds.slice_seconds) == (3, 2, 6, 60.0, 0.1)
    assert AnalysisSettings.of(Settings()) == AnalysisSettings()  # one set of defaults
    args = _serve_args(["--analysis-queue", "0", "--analysis-slice-seconds", "0.5"])
    assert (args.analysis_queue, args.analysis_slice_seconds) == (0, 0.5)
    with pytest.raises(ValueError, match="WIZARD_ANALYSIS_SECONDS"):
        Settings.from_env({"WIZARD_ANALYSIS_SECONDS": "long"})
    for name, value in (("analysis_queue", -1), ("analysis_per_player", 0),
                        ("analysis_worlds", 0), ("analysis_seconds", 0.0),
                        ("analysis_slice_seconds", 0.0)):
        with pytest.raises(ValueError, match=name):
            Settings(**{name: value})


def _serve_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    return parser.parse_args(["serve", *argv])


def test_the_operations_guide_shows_the_generated_settings_table() -> None:
    """The guide's table is what `FIELDS` generates, row for row (else: regenerate it)."""
    from wizard.server.settings_table import settings_table, with_settings_table

    guide = (Path(__file__).parents[2] / "docs" / "operations.md").read_text()
    assert with_settings_table(guide) == guide, (
        "docs/operations.md's settings table differs from FIELDS: run "
        "`.venv/bin/python -m wizard.server.settings_table --write`")
    table = settings_table()
    for field in FIELDS:
        assert f"| `{field.env}` | `{field.flag}` |" in table and field.help in table


def test_the_settings_table_shows_each_default_as_it_is_typed() -> None:
    from wizard.server.settings_table import shown_default

    by_name = {field.name: field for field in FIELDS}
    assert shown_default(by_name["port"]) == "`8000`"
    assert shown_default(by_name["ai_workers"]) == "`CPU count − 1 (≥ 1)`"  # the machine's
    assert shown_default(by_name["allowed_origins"]) == "(none)"
    assert shown_default(by_name["static_dir"]) == "(empty)"
    assert shown_default(by_name["trusted_proxies"]) == "`127.0.0.1,::1`"
    assert shown_default(by_name["ws_compression"]) == "`false`"
    # every shown default parses back to the default with the field's own parser
    defaults = Settings()
    for field in FIELDS:
        shown = shown_default(field)
        if field.default_text or not shown.startswith("`"):
            continue
        assert field.parse(shown.strip("`")) == getattr(defaults, field.name), field.env


def test_the_settings_table_is_written_between_its_markers(tmp_path: Path) -> None:
    from wizard.server.settings_table import TABLE_END, TABLE_START, main, settings_table

    page = tmp_path / "guide.md"
    page.write_text(f"intro\n{TABLE_START}\n| stale |\n{TABLE_END}\nafter\n")
    assert main(["--write", str(page)]) == 0
    assert page.read_text() == f"intro\n{TABLE_START}\n{settings_table()}{TABLE_END}\nafter\n"
    page.write_text("no markers\n")
    with pytest.raises(ValueError):
        main(["--write", str(page)])
