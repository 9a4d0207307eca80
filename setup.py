"""Ship templates/, static/ and migrations/ inside the wheel as pbem/_data/ (see pbem/resources.py).

Everything else about the package is declared in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA_DIRS = ("templates", "static", "migrations")


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        for name in DATA_DIRS:
            target = Path(self.build_lib) / "pbem" / "_data" / name
            shutil.copytree(
                name,
                target,
                dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
            )


setup(cmdclass={"build_py": BuildWithData})
