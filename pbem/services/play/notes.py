"""Notes to the opponent: nothing of the server's own mail may become one.

A note is shown to the two players only (their pages, mails, replays and audits; never a
public page or record), so a seat link in it hands the seat to the opponent. Mail
clients quote the mail they answer in ways no reply parser knows all of, so this is a
second line of defence that does not depend on the client: a note stops at the first
line of the server's own mail (its base URL, a seat link, its addresses, a line of its
standard mail texts in any language), and any seat link or reply address left in it is
cut out. Notes typed on the web come through the same rule (``moves._submit``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit

from babel.messages.pofile import read_po

from ... import redact
from ...config import Config
from ...i18n import CATALOGS
from ...resources import resource_dir

MESSAGE_LIMIT = 500
#: A note is read up to this many characters (a page's note field takes no more), of which
#: 500 are kept: the patterns below try every position of what they are given.
READ_LIMIT = 2000
#: What stands where a link was cut out of a note.
CUT = redact.CUT
#: A seat link on any host (a proxy may present another one), and anything shaped like
#: a seat token: an itsdangerous payload and signature, both base64url.
_SEAT_LINK = re.compile(
    r"(?:(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,30}://\S*?)?/s/[A-Za-z0-9_.\-]{8,}\S*", re.I
)
#: Quote marks (``>``, ``＞``, ``»``, ``›``, ``:``), list bullets and emphasis that clients
#: put around a quoted line.
_DECORATION = re.compile(
    r"^[\s>＞»›:*_|(\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]+"
    r"|[\s*_)\u200b-\u200f\u202a-\u202e]+$"
)
#: The gettext calls and blocks of the mail templates.
_CALL = re.compile(r"""\b(?:_|gettext|ngettext)\(\s*(["'])((?:\\.|(?!\1).)*)\1""", re.S)
_PLURAL = re.compile(
    r"""\bngettext\(\s*(["'])(?:\\.|(?!\1).)*\1\s*,\s*(["'])((?:\\.|(?!\2).)*)\2"""
)
_TRANS = re.compile(r"{%-?\s*trans\b[^%]*%}(.*?){%-?\s*endtrans\s*-?%}", re.S)
_PLACEHOLDER = re.compile(r"%\(([a-z_]+)\)[sd]|\{\{\s*([a-z_]+)\s*\}\}|%%")
#: Placeholders that always hold a number (Western or Persian digits).
_NUMBERS = frozenset({"n", "num", "count", "size", "days", "hours", "round"})


@cache
def _mail_msgids() -> frozenset[str]:
    """Every text the mail templates pass through gettext."""
    found: set[str] = set()
    for path in (resource_dir("templates") / "mail").glob("*.*"):
        source = path.read_text(encoding="utf-8")
        found.update(m.group(2) for m in _CALL.finditer(source))
        found.update(m.group(3) for m in _PLURAL.finditer(source))
        found.update(" ".join(m.group(1).split()) for m in _TRANS.finditer(source))
    return frozenset(found)


@cache
def _mail_lines() -> tuple[re.Pattern[str], ...]:
    """The standard mail texts in every language, as patterns a whole line must match.

    Each text becomes one pattern per line it spans; placeholders match anything. A
    pattern needs a few characters of its own, so "%(name)s: %(cards)s" matches nothing.
    """
    texts: set[str] = set(_mail_msgids())
    wanted = _mail_msgids()
    for po in CATALOGS.glob("*/LC_MESSAGES/messages.po"):
        with po.open("rb") as handle:
            catalog = read_po(handle)
        for message in catalog:
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            if not any(i in wanted for i in ids):
                continue
            string = message.string
            strings = tuple(string) if isinstance(string, (tuple, list)) else (string,)
            texts.update(s for s in strings if s)
    patterns = []
    for text in texts:
        for line in text.splitlines():
            line = _DECORATION.sub("", line)
            literal = _PLACEHOLDER.sub("", line).replace("%%", "")
            if sum(not c.isspace() for c in literal) < 4:
                continue
            pattern, at = "", 0
            for m in _PLACEHOLDER.finditer(line):
                pattern += _literal(line[at : m.start()])
                name = m.group(1) or m.group(2)
                pattern += r"[\d\u06f0-\u06f9]+" if name in _NUMBERS else ".+?"
                at = m.end()
            patterns.append(re.compile(pattern + _literal(line[at:]), re.I))
    return tuple(patterns)


def _literal(text: str) -> str:
    """A fixed piece of a mail text; any run of spaces in it matches any run (or none)."""
    return r"\s*" + r"\s*".join(re.escape(word) for word in text.split()) + r"\s*"


@dataclass(frozen=True)
class ServerText:
    """Recognises the lines of this server's own mails."""

    base: str  #: host and path of the base URL, e.g. ``pbem.example.org``
    reply_prefix: str  #: ``play+`` of ``play@domain``
    reply_domain: str
    sender: str  #: the address of ``mail_from``

    @classmethod
    def of(cls, config: Config) -> ServerText:
        url = urlsplit(config.base_url)
        local, _, domain = config.reply_address.lower().partition("@")
        sender = config.mail_from.rpartition("<")[2].rstrip(">").strip().lower()
        base = (url.netloc + url.path).rstrip("/").lower()
        return cls(base or config.base_url.lower(), local + "+", domain, sender)

    def is_ours(self, line: str) -> bool:
        """True for a line of the server's mail: its URL, a seat link, its addresses, its texts."""
        lowered = line.lower()
        if (self.base and self.base in lowered) or _SEAT_LINK.search(line):
            return True
        if self.reply_prefix in lowered and self.reply_domain in lowered:
            return True
        if self.sender and self.sender in lowered:
            return True
        bare = " ".join(_DECORATION.sub("", line).split())
        return bool(bare) and any(p.fullmatch(bare) for p in _mail_lines())

    def scrub(self, text: str) -> str:
        """Cut out every seat link and reply address of this server, then every secret
        and every link or address at all (``redact.scrubbed``)."""
        text = _SEAT_LINK.sub(CUT, text)
        if self.reply_domain:
            local = re.escape(self.reply_prefix)
            domain = re.escape(self.reply_domain)
            text = re.sub(rf"\S*{local}\S*@{domain}\S*", CUT, text, flags=re.I)
        return redact.scrubbed(text)


def without_links(text: str) -> str:
    """``text`` with every secret, link and address in it cut out (``redact.scrubbed``):
    what a refusal quotes of a mail may come from anyone, and must not carry a link."""
    return redact.scrubbed(text)


def before_server_text(lines: list[str], server: ServerText) -> list[str]:
    """The lines up to the first line of the server's own mail."""
    for i, line in enumerate(lines):
        if server.is_ours(line):
            return lines[:i]
    return lines


def note_for_opponent(config: Config, text: str | None) -> str | None:
    """A note as the opponent and the public page will see it, or ``None``.

    From its second line on it stops at the first line of the server's own mail (the
    first line is the player's: a link in it is cut out, not the whole note); any seat
    link, token, reply address or other link or address left is cut out; it becomes one
    line of at most 500 characters.
    """
    server = ServerText.of(config)
    lines = (text or "")[:READ_LIMIT].splitlines()
    kept = lines[:1] + before_server_text(lines[1:], server)
    note = " ".join(server.scrub(" ".join(kept)).split())
    if not note.replace(CUT, "").strip(" .,;:!?-"):
        return None
    return note[:MESSAGE_LIMIT]
