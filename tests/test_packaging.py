"""The project outside its checkout: the wheel, the pex file and the Dockerfile.

The wheel is built, installed into a fresh venv and run from an empty directory with
no ``WIZARD_*`` variable: it must serve the browser client and load the models that
``models/`` holds (none, when the checkout ships none: then the pool must report none).

Speed: the fresh venv reaches the runtime dependencies through a ``.pth`` file naming
the site-packages of the interpreter that runs the tests, and the wheel is installed
into it with ``pip --no-deps --no-index``. Installing numpy, onnxruntime, uvicorn, ...
from the package index would take minutes and need the network; what is tested here
(the wheel carries the client and the models, and the installed code finds them) is the
same either way. ``--system-site-packages`` would not do: the tests run in a venv whose
packages are not the base interpreter's. The wheel's own files come first on the path,
and the test checks that ``wizard`` is imported from the fresh venv, not the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from wizard.ai.policy import read_model_card

from . import serve
from .serve import ROOT, LiveServer, http_get

SHIPPED_MODELS = sorted((ROOT / "models").glob("*.onnx"))


def shipped_files(name: str) -> list[str]:
    """The files of ``static/`` or ``models/`` a wheel carries (hidden ones, like .gitkeep, not)."""
    top = ROOT / name
    return sorted(p.relative_to(top).as_posix() for p in top.rglob("*")
                  if p.is_file() and not any(part.startswith(".")
                                             for part in p.relative_to(top).parts))


def expected_policies() -> list[str]:
    """The names the pool gives the action policies in ``models/`` (the model card's name,
    else the stem); files whose card names another ``kind`` (the OI networks) are their
    agent's, not the pool's."""
    return sorted(str(read_model_card(p).get("name", p.stem)) for p in SHIPPED_MODELS
                  if read_model_card(p).get("kind", "policy") == "policy")


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment with no WIZARD_* (nor PYTHON*) variable."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "LANG": "C.UTF-8", **extra}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (built,) = out.glob("wizard_online-*.whl")
    return built


@pytest.fixture(scope="module")
def venv_python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "zz_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                    "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True,
                   timeout=300)
    return python


@pytest.fixture(scope="module")
def installed_server(venv_python: Path,
                     tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    empty = tmp_path_factory.mktemp("empty")
    log = tmp_path_factory.mktemp("logs") / "server.log"
    server = serve.start(log, command=[str(venv_python.parent / "wizard"), "serve"],
                               cwd=empty, base_env=clean_env(empty), defaults=None, timeout=120)
    try:
        yield server
    finally:
        server.stop()


def logged(log: Path, event: str) -> dict[str, object]:
    for line in log.read_text().splitlines():
        if line.startswith("{") and json.loads(line).get("event") == event:
            return dict(json.loads(line))
    raise AssertionError(f"no {event} in the server's log:\n{log.read_text()}")


def test_the_wheel_carries_the_client_and_the_models(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    client = sorted(n.removeprefix("wizard/_data/static/") for n in names
                    if n.startswith("wizard/_data/static/"))
    models = sorted(n.removeprefix("wizard/_data/models/") for n in names
                    if n.startswith("wizard/_data/models/"))
    assert client == shipped_files("static") and "index.html" in client
    assert models == shipped_files("models")
    assert not [n for n in names if n.startswith("tests/") or "__pycache__" in n]


def test_the_installed_package_is_the_one_imported(venv_python: Path, tmp_path: Path) -> None:
    where = subprocess.run(
        [str(venv_python), "-c", "import wizard, wizard.resources as r; "
         "print(wizard.__file__); print(r.shipped('static')); print(r.shipped('models'))"],
        cwd=tmp_path, env=clean_env(tmp_path), check=True, capture_output=True, text=True)
    package, static, models = where.stdout.split()
    venv = venv_python.parent.parent
    assert Path(package).is_relative_to(venv) and Path(static).is_relative_to(venv)
    assert Path(models).is_relative_to(venv)


def test_wizard_serve_from_an_empty_directory_serves_the_client(
        installed_server: LiveServer) -> None:
    status, page = http_get(f"{installed_server.http}/")
    assert status == 200 and page == (ROOT / "static" / "index.html").read_bytes()
    status, script = http_get(f"{installed_server.http}/static/js/app.js")
    assert status == 200 and script == (ROOT / "static" / "js" / "app.js").read_bytes()
    assert http_get(f"{installed_server.http}/healthz") == (200, b'{"status":"ok"}')
    status, ready = http_get(f"{installed_server.http}/readyz")
    assert status == 200 and json.loads(ready)["ready"] is True


def test_the_pool_loaded_the_shipped_models(installed_server: LiveServer) -> None:
    """Every model in ``models/`` (an empty ``models/``: the pool reports none)."""
    started = logged(installed_server.log, "pool_started")
    assert started["policies"] == expected_policies()
    with pytest.raises(AssertionError):
        logged(installed_server.log, "pool_policy_not_loaded")


def test_the_pex_file_runs_wizard_serve(wheel: Path, tmp_path: Path) -> None:
    """``scripts/build-pex`` builds one file that serves the client from an empty directory.

    Built ``--intransitive`` (the project only; it then borrows the test interpreter's
    dependencies): a full build resolves and packs 54 MB of wheels from the package
    index, minutes here (docs/operations.md has the one made by hand).
    """
    pex_root = tmp_path / "pex-root"
    output = tmp_path / "dist" / "wizard.pex"
    subprocess.run([str(ROOT / "scripts" / "build-pex"), "--output", str(output),
                    "--intransitive"], check=True, capture_output=True, timeout=300,
                   env={**os.environ, "PYTHON": sys.executable, "PEX_ROOT": str(pex_root)})
    empty = tmp_path / "empty"
    empty.mkdir()
    env = clean_env(empty, PEX_ROOT=str(pex_root), PEX_INHERIT_PATH="fallback")
    where = subprocess.run([sys.executable, str(output), "-c",
                            "import wizard.resources as r; print(r.shipped('static'))"],
                           cwd=empty, env={**env, "PEX_INTERPRETER": "1"}, check=True,
                           capture_output=True, text=True, timeout=120)
    assert Path(where.stdout.strip()).is_relative_to(pex_root)
    server = serve.start(tmp_path / "pex.log", command=[sys.executable, str(output),
                                                              "serve"],
                               cwd=empty, base_env=env, env={"WIZARD_AI_WORKERS": "0"},
                               defaults=None, timeout=120)
    try:
        status, page = http_get(f"{server.http}/")
        assert status == 200 and page == (ROOT / "static" / "index.html").read_bytes()
    finally:
        server.stop()
    logged(server.log, "server_stopped")  # SIGTERM: a graceful stop, not a kill


def test_the_dockerfile_is_lint_clean_and_installs_only_the_wheel() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    done = subprocess.run([hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    instructions = [line.split(None, 1) for line in dockerfile.splitlines()
                    if line and not line.startswith((" ", "#"))]
    users = [rest.strip() for word, rest in instructions if word == "USER"]
    assert users and users[-1].split(":")[0] not in ("0", "root")
    assert any(word == "HEALTHCHECK" for word, _ in instructions)
    assert 'VOLUME ["/app/data"]' in dockerfile and "STOPSIGNAL SIGTERM" in dockerfile
    assert "[dev" not in dockerfile and "[train" not in dockerfile
    assert "WIZARD_STATIC_DIR" not in dockerfile and "WIZARD_MODELS_DIR" not in dockerfile


def test_the_installed_package_plays_with_its_shipped_networks(venv_python: Path,
                                                               tmp_path: Path) -> None:
    """``model`` and ``oi`` load the networks that travel in the wheel (no variable set)."""
    names = {read_model_card(p).get("kind", "policy") for p in SHIPPED_MODELS}
    agents = [a for a, kind in (("model", "policy"), ("oi", "oi_overall")) if kind in names]
    script = ("from wizard.ai.registry import make_agent; from wizard.engine import WizardGame; "
              "g = WizardGame(4, seed=1); o = g.observation(g.current_player); "
              f"print(*[make_agent(a).act(o) in o.legal_actions for a in {agents!r}])")
    played = subprocess.run([str(venv_python), "-c", script], cwd=tmp_path,
                            env=clean_env(tmp_path), check=True, capture_output=True, text=True)
    assert played.stdout.split() == ["True"] * len(agents)
