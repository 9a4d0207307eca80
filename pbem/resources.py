"""Where ``templates/``, ``static/`` and ``migrations/`` are: in a checkout or an installed wheel.

A checkout (or editable install) has them beside the package; a wheel ships
them inside it as ``pbem/_data/`` (see ``[tool.setuptools.package-data]``).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    for candidate in (_PACKAGE.parent / name, _PACKAGE / "_data" / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"pbem cannot find its {name}/ folder (looked beside {_PACKAGE})")
