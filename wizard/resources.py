"""Where the files that ship beside the code are: the browser client and the ONNX policies.

In a checkout they are the repository's top-level ``static/`` and ``models/``.
An installed wheel carries copies inside the package (``wizard/_data/static``,
``wizard/_data/models``: `setup.py` puts them there), so ``pip install .``,
pipx, the pex file and the Docker image serve them from any directory.

>>> shipped("static").name
'static'
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
PACKAGED = PACKAGE / "_data"  # inside an installed wheel
CHECKOUT = PACKAGE.parent  # the repository root, when running from a checkout
SHIPPED = ("static", "models")


def shipped(name: str) -> Path:
    """The directory of shipped files ``name`` (``static`` or ``models``).

    Inside the installed package when it carries shipped files, else the
    checkout's top-level directory. It may not exist (a wheel built from an
    empty ``models/`` has none): the caller decides what that means.
    Raises `ValueError` for another name.
    """
    if name not in SHIPPED:
        raise ValueError(f"no shipped directory {name!r}; known: {', '.join(SHIPPED)}")
    return (PACKAGED if PACKAGED.is_dir() else CHECKOUT) / name


__all__ = ["PACKAGED", "SHIPPED", "shipped"]
