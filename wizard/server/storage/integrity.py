"""The check a database file gets before the server uses it (`check_file`)."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

import structlog

from .errors import StoreCorruptError

log = structlog.get_logger(__name__)

#: files up to this size (database + log) get the full ``integrity_check`` at start
#: (``WIZARD_DB_FULL_CHECK_MB``); measured 38 ms for 5.7 MiB, 1.3 s for 57 MiB, 2.5 s for
#: 226 MiB on a shared 2-core machine (docs/operations.md)
FULL_CHECK_BYTES = 128 * 1024 * 1024


def check_file(path: str, full_check_bytes: int = FULL_CHECK_BYTES) -> None:
    """Check the database at ``path`` (if it exists) before the server uses it.

    A file (with its ``-wal``) of at most ``full_check_bytes`` gets ``PRAGMA
    integrity_check``, which also finds an index that no longer matches its table
    (one flipped byte in an index page: every page is well-formed, so ``quick_check``
    passes, and the server would read the wrong rows); a bigger one gets ``PRAGMA
    quick_check`` (pages and b-trees only), so that start-up stays within seconds.

    On failure keeps a copy beside it (``<path>.corrupt-<UTC time>``, with its
    ``-wal``), logs ``store_corrupt`` and raises `StoreCorruptError` saying how to
    recover (``docs/operations.md``, "A damaged database").
    """
    if not Path(path).is_file():
        return
    wal = Path(path + "-wal")
    size = Path(path).stat().st_size + (wal.stat().st_size if wal.is_file() else 0)
    pragma = "integrity_check" if size <= full_check_bytes else "quick_check"
    began = time.perf_counter()
    try:
        conn = sqlite3.connect(path)
        try:
            problems = [str(row[0]) for row in conn.execute(f"PRAGMA {pragma}(20)")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        problems = [str(exc)]
    if problems == ["ok"]:
        log.info("store_checked", path=path, check=pragma, bytes=size,
                 ms=round((time.perf_counter() - began) * 1000))
        return
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    copy = f"{path}.corrupt-{stamp}"
    shutil.copy2(path, copy)
    if wal.is_file():
        shutil.copy2(wal, copy + "-wal")
    log.error("store_corrupt", path=path, check=pragma, copy=copy, problems=problems[:5])
    raise StoreCorruptError(
        f"the database {path} is damaged ({pragma}: {problems[0]}); a copy is kept at {copy}. "
        f"Recover what can be read with: sqlite3 {path} .recover | sqlite3 recovered.db, "
        "then start with WIZARD_DB=recovered.db, or restore a backup "
        "(docs/operations.md, 'A damaged database')")


__all__ = ["FULL_CHECK_BYTES", "check_file"]
