"""The shipped policy ``models/default.onnx``: legal full games, its card, refusals, no torch."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.ai.agents import ModelAgent
from wizard.ai.encoding import ENCODING_VERSION
from wizard.ai.policy import OnnxPolicy, models_dir
from wizard.ai.registry import make_agent
from wizard.engine import GameOptions, WizardGame
from wizard.training.onnx_graphs import write_random_policy

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "models" / "default.onnx"
ALL_OPTIONS = [GameOptions(*flags) for flags in itertools.product((False, True), repeat=3)]


def test_the_shipped_policy_and_its_card_are_there_and_small() -> None:
    assert models_dir() == ROOT / "models" or "WIZARD_MODELS_DIR" in os.environ
    assert SHIPPED.stat().st_size < 5 * 1024 * 1024
    card = json.loads(SHIPPED.with_suffix(".json").read_text())
    assert card["encoding_version"] == ENCODING_VERSION and card["trained"] is True
    assert card["parity"]["max_abs_diff"] < 1e-4 and card["parity"]["observations"] == 1000
    assert card["training"] and all("command" in stage for stage in card["training"])
    assert "vs_3_heuristics" in card["evaluation"]


@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_the_shipped_model_plays_legal_full_games_with_every_option(num_players: int) -> None:
    model = make_agent("model")
    assert isinstance(model, ModelAgent) and model.name == "model:default"
    heuristic = make_agent("heuristic")
    for k, options in enumerate(ALL_OPTIONS):
        # the model in every seat but one: it must cope with itself and the heuristic
        seats = [model] * num_players
        seats[k % num_players] = heuristic
        game = WizardGame(num_players, options, seed=100 * num_players + k)
        while not game.is_finished:
            player = game.current_player
            assert player is not None
            obs = game.observation(player)
            action = seats[player].act(obs)
            assert action in obs.legal_actions, f"illegal {action} with {options}"
            game.apply(player, action)
        assert len(game.round_history) == 60 // num_players


def test_evaluate_refuses_a_model_whose_file_is_missing(tmp_path: Path) -> None:
    env = {**os.environ, "WIZARD_MODELS_DIR": str(tmp_path)}
    for jobs in ("1", "2"):
        run = subprocess.run(
            [sys.executable, "-m", "wizard", "evaluate", "--agents", "model,heuristic,heuristic",
             "--games", "3", "--jobs", jobs, "--quiet"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == 2, run.stderr
        assert "default.onnx does not exist" in run.stderr
        assert run.stdout == ""  # no table: nothing was evaluated under the name model


@pytest.mark.parametrize("module", ["wizard.ai", "wizard.ai.agents", "wizard.ai.pool",
                                    "wizard.server", "wizard.server.app"])
def test_serving_never_imports_torch(module: str, tmp_path: Path) -> None:
    write_random_policy(tmp_path, "default", hidden=(8,))
    code = (f"import sys, {module}\n"
            "from wizard.ai.registry import make_agent\n"
            "from wizard.engine import WizardGame\n"
            "make_agent('model').act(WizardGame(4, seed=1).observation(1))\n"
            "sys.exit(1 if 'torch' in sys.modules else 0)")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "WIZARD_MODELS_DIR": str(tmp_path)})
    assert run.returncode == 0, run.stderr or f"importing {module} imported torch"


def test_the_wizard_command_registers_train_and_export_without_torch() -> None:
    code = ("import sys\n"
            "from wizard.__main__ import build_parser\n"
            "build_parser().parse_args(['export', 'ck', '--out', 'x.onnx'])\n"
            "sys.exit(1 if 'torch' in sys.modules else 0)")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def test_the_policy_loads_with_one_thread_as_the_pool_loads_it() -> None:
    policy = OnnxPolicy(SHIPPED, threads=1)
    assert policy.name == "default"
