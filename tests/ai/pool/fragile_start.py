"""Imported by the pool's workers in the healing tests (``worker_imports``): while the file
named by ``WIZARD_TEST_FAIL_START`` exists, a worker exits as it starts, so a successor
cannot come up (a broken install, a full disk, a model that crashes the runtime)."""

from __future__ import annotations

import os

_MARKER = os.environ.get("WIZARD_TEST_FAIL_START")
if _MARKER and os.path.exists(_MARKER):
    os._exit(3)
