"""Nothing a person who clones or installs pbem reads may send them to files they do not
have: the developers' notes kept beside the checkout. The rules and the formats are
published in docs/ instead, the layers and the invariants in docs/architecture.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_user_facing_file_points_at_the_developers_files():
    """What a person who installs or clones pbem reads must not send them to files they
    do not have: the developers' notes beside the checkout."""
    banned = re.compile(r"\.\./shared|shared/seeds|FORMAT\.md|RULES\.md|DESIGN\.md|STYLE\.md")
    suffixes = {".py", ".md", ".html", ".txt", ".po", ".pot", ".toml", ".json", ".cfg", ".js"}
    files = [ROOT / "README.md"]
    for folder in ("docs", "templates", "pbem", "migrations"):
        files += [
            p
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and p.suffix in suffixes and "__pycache__" not in p.parts
        ]
    offenders = [
        f"{path.relative_to(ROOT)}:{i}"
        for path in files
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if banned.search(line)
    ]
    assert not offenders, offenders
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/record-format.md" in readme and "docs/rules.md" in readme
    assert "docs/architecture.md" in readme


def test_every_screenshot_is_shown_somewhere():
    """docs/screenshots holds only pictures the README or a doc shows: a picture nobody
    links to is a stale page nobody checks (and weighs on every clone)."""
    texts = [(ROOT / "README.md").read_text(encoding="utf-8")]
    texts += [p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")]
    shown = "\n".join(texts)
    unused = [
        p.name
        for p in sorted((ROOT / "docs" / "screenshots").iterdir())
        if f"screenshots/{p.name}" not in shown
    ]
    assert not unused, unused
