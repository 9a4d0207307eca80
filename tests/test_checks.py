"""What `./test` checks before the tests, as docs/architecture.md ("Tests", "Types") says."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _commands() -> list[str]:
    """The lines of ./test that run something, in order."""
    return [
        line.strip()
        for line in (ROOT / "test").read_text().splitlines()
        if line.strip().startswith((".venv/bin/", "exec "))
    ]


def test_the_test_script_runs_ruff_then_mypy_then_the_tests() -> None:
    assert _commands() == [
        ".venv/bin/ruff check .",
        ".venv/bin/ruff format --check .",
        ".venv/bin/mypy",
        'exec .venv/bin/python -m pytest "$@"',
    ]


def test_mypy_checks_the_whole_package_at_the_documented_strictness() -> None:
    mypy = PYPROJECT["tool"]["mypy"]
    assert mypy["packages"] == ["pbem"]
    assert mypy["warn_unused_ignores"] is True
    assert not {"strict", "ignore_errors", "follow_imports"} & set(mypy)
    overrides = {tuple(o["module"]): o for o in mypy["overrides"]}
    assert overrides[("pbem.engine.*", "pbem.ai.*", "pbem.events.*")] == {
        "module": ["pbem.engine.*", "pbem.ai.*", "pbem.events.*"],
        "check_untyped_defs": True,
    }
    untyped = [o for o in mypy["overrides"] if o.get("ignore_missing_imports")]
    assert [o["module"] for o in untyped] == [
        ["apscheduler.*", "flask_babel.*", "mailparser_reply.*"]
    ]
    assert all(not m.startswith("pbem") for o in untyped for m in o["module"])


def test_the_test_extra_installs_mypy_and_the_stubs_it_needs() -> None:
    extra = PYPROJECT["project"]["optional-dependencies"]["test"]
    names = {e.split(">")[0].split("=")[0].split("[")[0] for e in extra}
    assert {"ruff", "mypy", "types-gunicorn"} <= names


def _test_sources() -> dict[str, str]:
    return {
        p.relative_to(ROOT).as_posix(): p.read_text()
        for p in sorted((ROOT / "tests").rglob("*.py"))
    }


def test_no_test_imports_a_conftest() -> None:
    """Shared helpers live in the plain module tests/support.py (pytest advises against
    importing a conftest, which it loads itself)."""
    importing = [
        path
        for path, text in _test_sources().items()
        if "from tests.conftest" in text or "import conftest" in text
        if path != "tests/test_checks.py"
    ]
    assert importing == []


def test_each_shared_fixture_and_helper_is_defined_once() -> None:
    """One ``own_database``, one ``live_server``, one random playout."""
    for name in ("own_database", "live_server", "play_random"):
        defined = [path for path, text in _test_sources().items() if f"def {name}(" in text]
        assert len(defined) == 1, (name, defined)
