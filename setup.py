"""Packaging hook (everything else is in ``pyproject.toml``): the wheel carries the
browser client and the shipped models.

``static/`` and ``models/`` stay at the top of the repository, where a checkout
uses them; `build_py` copies them into the built package as
``wizard/_data/static`` and ``wizard/_data/models``, where `wizard.resources`
finds them once installed. An editable install keeps using the checkout's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = ("static", "models")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


class BuildWithShippedFiles(build_py):
    def run(self) -> None:
        editable = getattr(self, "editable_mode", False)
        if not editable:
            # an in-tree build reuses build/lib: start clean so that a file deleted from the
            # checkout (a module, a model) does not linger in the next wheel
            shutil.rmtree(Path(self.build_lib) / "wizard", ignore_errors=True)
        super().run()
        if editable:
            return
        for name in SHIPPED:
            source = ROOT / name
            if source.is_dir():
                target = Path(self.build_lib) / "wizard" / "_data" / name
                shutil.copytree(source, target, ignore=IGNORED)


setup(cmdclass={"build_py": BuildWithShippedFiles})
