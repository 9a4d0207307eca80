"""What a player's name may hold: one rule for every place a name enters.

A name is shown on pages, written into mail subjects and ``To`` headers, and kept in
records. It is typed by the player, or by the opponent who creates the game, so it is
hostile until checked: here, once, for the home page, challenges, settings, the CLI and
records alike. Pages escape it and mail headers take it only as an
``email.headerregistry.Address`` display name, but a name that holds a line break, a
MIME encoded word (which mail software decodes into anything, CR/LF included) or
invisible text that reverses what follows it is refused where it enters.
"""

from __future__ import annotations

import re
import unicodedata

MAX_LENGTH = 80

#: ``=?charset?B|Q?text?=``: mail software decodes it, so a name must never carry one.
_ENCODED_WORD = re.compile(r"=\?[^?\s]*\?[bq]\?[^?]*\?=", re.I)
#: Zero-width joiner and non-joiner: part of the spelling of Persian and of emoji.
_JOINERS = {"\u200c", "\u200d"}


class BadName(ValueError):
    """A name that cannot be used; ``code`` says why (the caller words it for the reader)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


#: Why a name is refused, in the words the services translate.
EMPTY, TOO_LONG, CONTROL, ENCODED_WORD, ANGLE_BRACKETS = (
    "empty",
    "too_long",
    "control",
    "encoded_word",
    "angle_brackets",
)


def _refused_character(ch: str) -> bool:
    """Control, format (bidi overrides, zero-width), separator, surrogate or unassigned."""
    if ch in _JOINERS:
        return False
    category = unicodedata.category(ch)
    return category in ("Cc", "Cf", "Cs", "Cn", "Zl", "Zp")


def clean_name(raw: str) -> str:
    """The name as it will be kept: NFC, each run of spaces made one space, none at the ends.

    Raises ``BadName`` for a name that is empty, longer than ``MAX_LENGTH``, holds a
    control or invisible formatting character (a line break included), an encoded word,
    or angle brackets (which make a name look like an address).
    """
    if not isinstance(raw, str):
        raise BadName(EMPTY)
    text = unicodedata.normalize("NFC", raw).replace("\t", " ")
    if any(_refused_character(ch) for ch in text):
        raise BadName(CONTROL)
    name = " ".join(text.split())  # every kind of space, runs of them made one
    if not name:
        raise BadName(EMPTY)
    if len(name) > MAX_LENGTH:
        raise BadName(TOO_LONG)
    if _ENCODED_WORD.search(name):
        raise BadName(ENCODED_WORD)
    if "<" in name or ">" in name:
        raise BadName(ANGLE_BRACKETS)
    return name


#: The categories no name may hold: control, format (bidi overrides, zero-width spaces,
#: soft hyphens; the joiners excepted), surrogate, line and paragraph separator.
_REFUSED_IN_RECORDS = ("Cc", "Cf", "Cs", "Zl", "Zp")


def record_name_problem(raw: object) -> str | None:
    """Why a name written in a record file cannot be shown, or None (record-format.md §4.2).

    The rule ``clean_name`` holds names to, on the name as written, with two differences
    a file read anywhere needs: a tab is a control character like any other (the server
    turns it into a space before it keeps a name, so a record it wrote holds none), and an
    unassigned code point passes (a reader on an older Unicode could not tell it from a
    letter added since, and a record must read the same everywhere).
    """
    if not isinstance(raw, str):
        return EMPTY
    if any(ch not in _JOINERS and unicodedata.category(ch) in _REFUSED_IN_RECORDS for ch in raw):
        return CONTROL
    if not raw.strip():
        return EMPTY
    if len(raw) > MAX_LENGTH:
        return TOO_LONG
    if _ENCODED_WORD.search(raw):
        return ENCODED_WORD
    if "<" in raw or ">" in raw:
        return ANGLE_BRACKETS
    return None


def name_problem(raw: str) -> str | None:
    """Why ``raw`` cannot be a name, or None."""
    try:
        clean_name(raw)
    except BadName as exc:
        return exc.code
    return None


def sanitized(raw: str, fallback: str = "Player") -> str:
    """A usable name made from any text (an address's local part, a name stored before these
    checks): what ``clean_name`` refuses is dropped, and ``fallback`` stands in for nothing."""
    text = unicodedata.normalize("NFC", str(raw)).replace("\t", " ")
    text = "".join(ch for ch in text if not _refused_character(ch))
    while _ENCODED_WORD.search(text):
        text = _ENCODED_WORD.sub(lambda m: m.group(0).replace("=?", "= ?"), text)
    text = " ".join(text.replace("<", "").replace(">", "").split())
    return " ".join(text[:MAX_LENGTH].split()) or fallback
