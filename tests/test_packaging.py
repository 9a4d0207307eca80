"""An installed wheel finds its templates, static files and migrations (resources.py)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_carries_templates_static_and_migrations(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("pbem-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "pbem/_data/templates/web/seat.html",
        "pbem/_data/templates/mail/your_turn.txt",
        "pbem/_data/static/style.css",
        "pbem/_data/migrations/env.py",
        "pbem/_data/migrations/versions/0001_initial.py",
        "pbem/engine/round.py",
        "pbem/i18n/glossary.toml",
        *(f"pbem/translations/{lang}/LC_MESSAGES/messages.mo" for lang in ("el", "fa", "uk", "zh")),
    ):
        assert needed in names, needed
    assert not any(n.startswith("tests/") for n in names)
