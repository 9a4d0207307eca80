"""The version is written once (``pbem.__version__``); pyproject.toml, the installed
package, the wheel served at ``/download``, CHANGELOG.md and the README's example read it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pbem
from pbem import wheel

ROOT = Path(__file__).resolve().parent.parent


def test_pyproject_reads_the_version_from_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pbem.__version__"}


def test_the_version_is_written_in_one_place() -> None:
    """No other module of the package spells a version of its own."""
    written = re.compile(r"""(__version__|version)\s*=\s*["']\d+\.\d+""")
    spelled = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "pbem").rglob("*.py"))
        if written.search(path.read_text())
    ]
    assert spelled == ["pbem/__init__.py"]
    assert not written.search((ROOT / "setup.py").read_text())


def test_the_changelog_starts_with_this_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", changelog, flags=re.MULTILINE)
    assert versions[0] == pbem.__version__
    assert len(versions) == len(set(versions))  # each version once
    top = changelog.split(f"## [{pbem.__version__}]")[1].split("\n## [")[0]
    assert re.match(r" - \d{4}-\d{2}-\d{2}\n", top)  # dated, as Keep a Changelog has it
    assert f"pbem-{pbem.__version__}-py3-none-any.whl" in top  # the name it says is served


def test_the_checker_served_carries_the_version_in_its_name(client) -> None:
    """The installed distribution is this version, so the wheel built and served from it is
    named for it: a new version is a new file name, never a stale cached one."""
    assert wheel.version() == pbem.__version__
    name = wheel.wheel_name(wheel.version())
    assert name == f"pbem-{pbem.__version__}-py3-none-any.whl"
    stable = client.get("/pbem.whl")
    assert stable.status_code == 302 and stable.headers["Location"].endswith(f"/download/{name}")
    assert f"/download/{name}" in (ROOT / "README.md").read_text()  # the README's example


def test_the_docs_name_the_checkers_dependencies_as_pyproject_has_them() -> None:
    """The README, docs/architecture.md and /download say what the offline checker installs:
    exactly the package's own dependencies (click, and networkx for Swiss events)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    needs = {re.match(r"[A-Za-z0-9_.-]+", d).group(0) for d in project["project"]["dependencies"]}
    readme = " ".join((ROOT / "README.md").read_text().split())
    said = re.search(r"The package needs only (.*?): the server's dependencies", readme)
    assert said is not None
    assert set(re.findall(r"`([\w.-]+)`", said.group(1))) == needs, said.group(1)
    architecture = " ".join((ROOT / "docs" / "architecture.md").read_text().split())
    said = re.search(r"the offline checker, installed with (.*?) alone", architecture)
    assert said is not None and set(re.findall(r"\w+", said.group(1))) - {"and"} == needs
    download = (ROOT / "templates" / "web" / "download.html").read_text()
    said = re.search(r"installs only (.*?) \(", download)
    assert said is not None and set(re.findall(r"\w+", said.group(1))) - {"and"} == needs
