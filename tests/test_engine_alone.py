"""The engine's tests run with only the engine's dependencies (none) besides pytest and
hypothesis: a player's checker and a reader of the rules need nothing of the server.

Each server library is made unimportable in a child interpreter (``sys.modules[name] =
None`` makes ``import name`` fail) and ``tests/engine`` is run there; an import of the
store, the services or Flask creeping into the engine or into the root conftest fails it.
The same check by hand, in a venv that has only pytest and hypothesis, is in README.md.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The server's libraries (pyproject.toml, the ``server`` extra) and the test extras.
SERVER_LIBRARIES = (
    "flask", "flask_babel", "jinja2", "itsdangerous", "sqlalchemy", "alembic", "psycopg",
    "apscheduler", "aiosmtpd", "openskill", "gunicorn", "babel", "mailparser_reply",
    "html2text", "limits", "jsonschema", "playwright", "werkzeug",
)  # fmt: skip

CHILD = """
import sys
for name in {names!r}:
    sys.modules[name] = None
import pytest
sys.exit(pytest.main(["tests/engine", "-q", "-p", "no:cacheprovider", "-x"]))
"""


@pytest.mark.slow
def test_the_engine_tests_need_no_server_library() -> None:
    child = subprocess.run(
        [sys.executable, "-c", CHILD.format(names=SERVER_LIBRARIES)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert child.returncode == 0, child.stdout[-3000:] + child.stderr[-3000:]
