"""Issue 18's attack list (scripts/attack_check.py) holds against a real server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_attack_of_the_list_is_refused() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "attack_check.py")],
                         cwd=ROOT, capture_output=True, text=True, timeout=240)
    lines = run.stdout.splitlines()
    assert run.returncode == 0, run.stdout + run.stderr
    assert not [line for line in lines if line.startswith("BROKE")]
    attacks = [line for line in lines if line.startswith("held")]
    assert len(attacks) >= 30 and lines[-1] == f"{len(attacks)} of {len(attacks)} held"
    for topic in ("forged token", "another seat", "replayed act", "path traversal",
                  "HTML in a name", "HTML in chat", "websockets from one address",
                  "tables from one address", "private table: join_table by id",
                  "private game record by game id alone"):
        assert any(topic in line for line in attacks), topic
