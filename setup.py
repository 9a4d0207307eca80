"""Ship templates/, static/ and migrations/ inside the wheel as pbem/_data/ (see pbem/resources.py),
and compile the gettext catalogs (pbem/translations/*/LC_MESSAGES/messages.po) to .mo.

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
        self.compile_catalogs()

    def compile_catalogs(self) -> None:
        """An installed wheel reads .mo files; only the .po files are kept in git."""
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in Path("pbem/translations").glob("*/LC_MESSAGES/messages.po"):
            target = Path(self.build_lib) / po.with_suffix(".mo")
            target.parent.mkdir(parents=True, exist_ok=True)
            with po.open("rb") as source, target.open("wb") as out:
                write_mo(out, read_po(source), use_fuzzy=False)


setup(cmdclass={"build_py": BuildWithData})
