"""Small words (issue 33, point 9, and the Chinese of point 6): a count takes its plural
form, the pages and the CLI name the record format the server writes, and the Chinese
catalog says "round" with the rule book's word and writes Chinese punctuation."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from babel.messages.pofile import read_po
from click.testing import CliRunner

from pbem.cli import main
from pbem.engine.record import RECORD_FORMAT
from pbem.services.records import game_records
from tests.mail.play import new_game, play

CATALOGS = Path(__file__).resolve().parents[2] / "pbem" / "translations"
GLOSSARY = Path(__file__).resolve().parents[2] / "pbem" / "i18n" / "glossary.toml"
#: The params that count what varies from one (a deck, a game's moves, an analysis).
COUNTS = re.compile(r"%\((?:deck|moves|total|num|n|count)\)s (?:cards|moves|camels|rupees)\b")
HAN = r"[\u3400-\u9fff]"


def _catalog(language: str | None = None):
    path = CATALOGS / (f"{language}/LC_MESSAGES/messages.po" if language else "messages.pot")
    with path.open("rb") as fp:
        return read_po(fp)


def test_a_count_has_its_plural_form():
    """No "deck 1 cards": a text that counts what may be one is an ngettext pair."""
    single = [m.id for m in _catalog() if m.id and isinstance(m.id, str) and COUNTS.search(m.id)]
    assert not single


def test_the_pages_and_the_cli_name_the_format_the_server_writes(client, env):
    public_id = new_game(env)
    play(env, public_id, 1)
    assert game_records.operator_record(env, public_id)["format"] == RECORD_FORMAT
    home = client.get("/?lang=en").text
    # named first, each format in its own <code>, the list joined the reader's way
    assert f'<code dir="ltr">{RECORD_FORMAT}</code> and' in home
    assert RECORD_FORMAT in CliRunner().invoke(main, ["export", "--help"]).output


def test_chinese_says_round_as_the_rule_book_does():
    term = tomllib.loads(GLOSSARY.read_text())["zh"]["round"]["term"]
    assert term == "回合"
    for m in _catalog("zh"):
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if not any(re.search(r"\b[Rr]ounds?\b", i or "") for i in ids):
            continue
        for s in strings:
            assert not re.search("轮(?!到)", s), (m.id, s)  # 轮到: "it is … turn"
            if re.search(r"\b[Rr]ound %\(", ids[0]):
                assert term in s, (m.id, s)


def test_chinese_punctuation_is_chinese():
    """No ASCII colon, comma, semicolon or bracket next to a Chinese character (a list of
    the ASCII signs themselves, and a function call such as sha256(…), excepted)."""
    bad = []
    for m in _catalog("zh"):
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        for s in strings:
            s = re.sub(r"<code\b[^>]*>.*?</code>|%\(\w+\)s|\w+\([^)]*\)|\s[:;,]\s", " ", s or "")
            if re.search(rf"{HAN}[:;,()]|[:;,()]{HAN}", s):
                bad.append(s)
    assert not bad, "\n".join(bad)
