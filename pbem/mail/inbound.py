"""Reading a reply mail: its id, its reply token, and the move line in its text.

Nothing here trusts the sender: ``From`` is kept only to answer a mail whose
token is no good; the token in the reply address is what authenticates.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser
from typing import Any

from ..i18n import lazy_gettext as _l

#: Lines that start the quoted original in common mail clients.
_QUOTE_HEADERS = (
    re.compile(r"^on .{3,200}wrote:?$", re.I),
    re.compile(r"^-{2,}\s*original message\s*-{2,}$", re.I),
    re.compile(r"^_{5,}$"),
    re.compile(r"^(from|sent|to|subject|date):\s", re.I),
    re.compile(r"^le .{3,200}a écrit\s*:$", re.I),
    re.compile(r"^am .{3,200}schrieb .{1,200}:$", re.I),
)
#: NUL and other control characters (not tab or newline) never reach the database.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SIGNATURE = re.compile(r"^(--|—|-- )\s*$")
_SENT_FROM = re.compile(r"^sent from my \w+", re.I)


@dataclass(frozen=True, slots=True)
class Inbound:
    message_id: str
    sender: str | None
    recipients: tuple[str, ...]
    subject: str
    text: str | None
    problem: Any  # why the mail cannot be read as a reply, in plain words (lazy: translated)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("style", "script", "head"):
            self._skip += 1
        if tag in ("br", "p", "div", "tr", "li", "blockquote"):
            self.parts.append("\n")
        if tag == "blockquote":
            self.parts.append("> ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script", "head") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def clean(text: str) -> str:
    return _CONTROL.sub("", text)


def html_to_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return "".join(parser.parts)


def parse_inbound(
    raw: bytes, envelope_rcpts: list[str] | tuple[str, ...] = (), max_bytes: int = 256 * 1024
) -> Inbound:
    """Parse a raw mail; never raises on bad input, it reports a ``problem`` instead."""
    fallback_id = "<sha256." + hashlib.sha256(raw).hexdigest() + "@inbound>"
    try:
        msg: EmailMessage = BytesParser(policy=policy.default).parsebytes(raw)  # type: ignore[assignment]
    except Exception:  # the email package is lenient; this is a last resort
        return Inbound(
            fallback_id, None, tuple(envelope_rcpts), "", None, "the mail could not be read"
        )
    message_id = clean(str(msg.get("Message-ID") or "")).strip()[:300] or fallback_id
    sender = clean(parseaddr(str(msg.get("From") or ""))[1]) or None
    header_rcpts = [
        a
        for _, a in getaddresses(
            [
                str(v)
                for h in ("Delivered-To", "X-Original-To", "To", "Cc")
                for v in msg.get_all(h, [])
            ]
        )
    ]
    recipients = tuple(dict.fromkeys(clean(a) for a in [*envelope_rcpts, *header_rcpts]))
    subject = clean(str(msg.get("Subject") or ""))[:300]

    def unreadable(problem: Any) -> Inbound:
        return Inbound(message_id, sender, recipients, subject, None, problem)

    if len(raw) > max_bytes:
        return unreadable(
            _l(
                "the mail is larger than %(size)s KB: send just the "
                "move, as plain text, without attachments",
                size=max_bytes // 1024,
            )
        )
    try:
        body = msg.get_body(preferencelist=("plain", "html"))
        text = body.get_content() if body is not None else None
        if text is not None and body is not None and body.get_content_type() == "text/html":
            text = html_to_text(text)
    except (LookupError, UnicodeError, KeyError, AttributeError):
        text = None
    if isinstance(text, str):
        text = clean(text)
    if not isinstance(text, str) or not text.strip():
        return unreadable(_l("the mail has no text in it: write the move as plain text"))
    return Inbound(message_id, sender, recipients, subject, text, None)


def reply_tokens(addresses: tuple[str, ...] | list[str], reply_address: str) -> list[str]:
    """The tokens of the addresses of the form ``<local>+<token>@<domain>`` of the reply address."""
    local, _, domain = reply_address.lower().partition("@")
    out = []
    for address in addresses:
        a_local, _, a_domain = address.lower().strip("<> ").partition("@")
        if a_domain == domain and a_local.startswith(local + "+"):
            out.append(a_local[len(local) + 1 :])
    return out


def split_reply(text: str) -> tuple[str, str | None]:
    """The move line (the first line that is not quoted, blank or a signature) and the note.

    The note is the lines after the move, up to the quoted original or a signature.
    """
    move = ""
    note: list[str] = []
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if _SIGNATURE.match(raw_line) or _SENT_FROM.match(line):
            break
        if any(p.match(line) for p in _QUOTE_HEADERS) or line.startswith(">"):
            if move:
                break
            continue
        if not line:
            if move and note and note[-1] != "":
                note.append("")
            continue
        if not move:
            move = line
        else:
            note.append(line)
    text_note = " ".join(part for part in note if part).strip()
    return move, text_note or None
