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

#: Characters that show nothing, though a name may hold them beside visible ones: Unicode's
#: default-ignorable code points (variation selectors, the combining grapheme joiner,
#: the Hangul fillers, Mongolian selectors, tags…) and the blank braille pattern.
_BLANK_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
#: The categories of a visible character: letters, digits, punctuation and symbols.
_VISIBLE_CATEGORIES = ("L", "N", "P", "S")

#: Look-alikes of the characters that make a display name read as addresses in a mail
#: client (``<`` ``>`` ``@`` ``,`` ``;`` ``:``): the full-width, small and vertical forms
#: (each folds to the ASCII one under NFKC), and others drawn alike (single angle quotes,
#: modifier letters, mathematical and CJK angle brackets, the ratio sign…). The ASCII
#: ``<`` and ``>`` are refused on their own; ``@`` in every form (``folded``);
#: ``,`` ``;`` ``:`` are a name's ordinary punctuation (``Bob, Jr.``).
_ADDRESS_LOOKALIKES = frozenset(
    "\ufe64\uff1c\u2039\u02c2\u1438\u276e\u2329\u3008\u27e8"  # <
    "\ufe65\uff1e\u203a\u02c3\u1433\u276f\u232a\u3009\u27e9"  # >
    "\ufe6b\uff20"  # @
    "\ufe10\ufe50\uff0c\u201a\ua4f9"  # ,
    "\ufe14\ufe54\uff1b\u204f"  # ;
    "\ufe13\ufe55\uff1a\u2236\ua789\u02f8\ufe30\u205a\u05c3\u2a74"  # :
    + "".join(chr(c) for c in range(0x1F101, 0x1F10B))  # digit with comma: 🄁 …
)
#: The most combining marks one character may carry: enough for any language's accents
#: (Vietnamese, Hebrew points, Devanagari), not for a "zalgo" pile that covers the page.
MAX_MARKS = 3


class BadName(ValueError):
    """A name that cannot be used; ``code`` says why (the caller words it for the reader)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


#: Why a name is refused, in the words the services translate.
EMPTY, TOO_LONG, CONTROL, ENCODED_WORD, ANGLE_BRACKETS, ADDRESS, INVISIBLE, MARKS = (
    "empty",
    "too_long",
    "control",
    "encoded_word",
    "angle_brackets",
    "address",
    "invisible",
    "marks",
)


def _refused_character(ch: str) -> bool:
    """Control, format (bidi overrides, zero-width), separator, surrogate or unassigned."""
    if ch in _JOINERS:
        return False
    category = unicodedata.category(ch)
    return category in ("Cc", "Cf", "Cs", "Cn", "Zl", "Zp")


def visible(ch: str) -> bool:
    """A letter, digit, punctuation mark or symbol that shows (not a blank filler)."""
    if unicodedata.category(ch)[0] not in _VISIBLE_CATEGORIES:
        return False
    code = ord(ch)
    return not any(low <= code <= high for low, high in _BLANK_RANGES)


def folded(name: str) -> str:
    """``name`` as a reader takes it in: NFKC (a wide or small ``＠`` is an ``@``) with its
    format characters and combining marks dropped (``@\u0301`` still reads as ``@``)."""
    return "".join(
        ch
        for ch in unicodedata.normalize("NFKC", name)
        if unicodedata.category(ch) != "Cf" and not unicodedata.category(ch).startswith("M")
    )


def _looks_like_address(name: str) -> bool:
    """A look-alike of ``< > @ , ; :``, or an ``@`` in any form: a display name needs none,
    and every rule short of that (an ``@`` before a domain) has been got round."""
    return any(ch in _ADDRESS_LOOKALIKES for ch in name) or "@" in folded(name)


def most_marks(name: str) -> int:
    """The longest run of combining marks on one character of ``name`` (NFC)."""
    most = run = 0
    for ch in name:
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        most = max(most, run)
    return most


def clean_name(raw: str) -> str:
    """The name as it will be kept: NFC, each run of spaces made one space, none at the ends.

    Raises ``BadName`` for a name that is empty, longer than ``MAX_LENGTH``, holds a
    control or invisible formatting character (a line break included), an encoded word,
    angle brackets, an ``@`` in any form or anything else that makes a name read as an
    address in a mail client (``ADDRESS``: ``me@home``, ``Bob ＜x＞``), no visible
    character at all (``INVISIBLE``: only joiners, fillers, selectors, blank spaces), or
    more than ``MAX_MARKS`` combining marks on one character (``MARKS``).
    """
    if not isinstance(raw, str):
        raise BadName(EMPTY)
    text = unicodedata.normalize("NFC", raw).replace("\t", " ")
    if any(_refused_character(ch) for ch in text):
        raise BadName(CONTROL)
    name = " ".join(text.split())  # every kind of space, runs of them made one
    if not name:  # nothing typed, or only spaces that show as nothing (no-break, em…)
        raise BadName(INVISIBLE if text.strip(" ") else EMPTY)
    if len(name) > MAX_LENGTH:
        raise BadName(TOO_LONG)
    if _ENCODED_WORD.search(name):
        raise BadName(ENCODED_WORD)
    if "<" in name or ">" in name:
        raise BadName(ANGLE_BRACKETS)
    if _looks_like_address(name):
        raise BadName(ADDRESS)
    if not any(visible(ch) for ch in name):
        raise BadName(INVISIBLE)
    if most_marks(name) > MAX_MARKS:
        raise BadName(MARKS)
    return name


#: The categories no name may hold: control, format (bidi overrides, zero-width spaces,
#: soft hyphens; the joiners excepted), surrogate, line and paragraph separator.
_REFUSED_IN_RECORDS = ("Cc", "Cf", "Cs", "Zl", "Zp")


def record_name_problem(raw: object) -> str | None:
    """Why a name written in a record file cannot be shown, or None (record-format.md §4.2).

    The rule ``clean_name`` holds names to, on the name as written, with the differences
    a file read anywhere needs: a tab is a control character like any other (the server
    turns it into a space before it keeps a name, so a record it wrote holds none); an
    unassigned code point passes (a reader on an older Unicode could not tell it from a
    letter added since, and a record must read the same everywhere); and the server's
    later rules for a name it is given (``ADDRESS``, ``INVISIBLE``) are not applied, so
    a record written before them, or by another implementation, reads and verifies as it
    did. A name in a record is outside every hash: pages that show an uploaded record
    say so (record-format.md §4.2).
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


def _fewer_marks(text: str) -> str:
    """``text`` with each run of combining marks cut to ``MAX_MARKS``."""
    kept, run = [], 0
    for ch in text:
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        if run <= MAX_MARKS:
            kept.append(ch)
    return "".join(kept)


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
    text = "".join(ch for ch in text if ch not in _ADDRESS_LOOKALIKES)
    text = text.replace("<", "").replace(">", "")
    text = "".join(" " if "@" in unicodedata.normalize("NFKC", ch) else ch for ch in text)
    text = _fewer_marks(text)
    name = " ".join(" ".join(text.split())[:MAX_LENGTH].split())
    return name if any(visible(ch) for ch in name) else fallback
