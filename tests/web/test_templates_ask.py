"""Templates ask for a rule's number and the rating's spread; they never spell them
(docs/architecture.md: no template restates a rule). A template that writes "camel token
(5)" or ``3 * sigma`` goes stale the day the engine or the rating model changes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.engine.views import RULE_NUMBERS

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"

#: A word of the game: a number within a few words of one is a rule's number.
GAME_WORDS = r"camel|token|card|hand|bonus|seal|goods|sell|sale|market|herd|diamond|gold|silver"

#: A literal string handed to ``_``, ``ngettext`` or ``{% trans %}``.
TRANSLATED = re.compile(
    r"""(?:\b_|\bngettext)\(\s*"((?:[^"\\]|\\.)*)"|{%\s*trans\b[^%]*%}(.*?){%""", re.S
)

#: A number within a few words of a game word, either side.
NEAR = re.compile(
    rf"(?i)\b\d+\b[^.;:]{{0,25}}\b({GAME_WORDS})|\b({GAME_WORDS})\w*[^.;:]{{0,25}}\b\d+\b"
)


def _translated_texts() -> list[tuple[str, str]]:
    found = []
    for path in sorted(TEMPLATES.rglob("*.*")):
        if path.suffix not in (".html", ".txt"):
            continue
        for match in TRANSLATED.finditer(path.read_text()):
            found.append((str(path.relative_to(TEMPLATES)), match.group(1) or match.group(2)))
    return found


def test_the_scan_reads_the_templates() -> None:
    assert len(_translated_texts()) > 200


@pytest.mark.parametrize("where,text", _translated_texts())
def test_no_template_spells_a_rule_number(where: str, text: str) -> None:
    assert not NEAR.search(text), f"{where} spells a rule's number: ask rule_numbers for it"


def test_the_rule_numbers_name_the_camel_token_and_the_minimum_sales() -> None:
    assert RULE_NUMBERS.camel_token == 5
    assert (RULE_NUMBERS.exchange_minimum, RULE_NUMBERS.precious_minimum) == (2, 2)


def test_no_template_computes_the_rating_spread() -> None:
    offenders = [
        str(path.relative_to(TEMPLATES))
        for path in sorted(TEMPLATES.rglob("*.html"))
        if re.search(r"\d\s*\*\s*\w*\.?(rating_)?sigma|sigma\s*\*\s*\d", path.read_text())
    ]
    assert offenders == []
