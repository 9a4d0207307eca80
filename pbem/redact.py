"""No bearer secret in any log (docs/architecture.md, invariant 6).

A seat link, a sign-in link, an API token and a reply address each let their holder act
as a player, so none may reach a log line: not the development server's request log,
not gunicorn's access or error log, not a traceback, not the inbound receiver's log of
the SMTP conversation. ``install()`` makes every log record of the process pass through
``redact`` as it is made (a record factory, so no logger, handler or library can be
forgotten), and the web app adds its token routes with ``mask_routes``: the routes are
read from its URL map, so a new route with a ``<secret:…>`` argument is masked too.
What stands in a secret's place is ``[token]``.

``scrubbed`` is the same rule for what a person supplies and the server keeps or shows
(a refused move's text in the access log and its audit, a refusal mail's quote and
reason, a challenge's note, a note to the opponent): every secret-shaped piece and
every link or address in it is cut out, as ``[…]``, so that nobody can publish a seat
by mailing its token where an audit or a public page will later quote it.
"""

from __future__ import annotations

import logging
import re
import traceback
from collections.abc import Iterable
from typing import Any

MASK = "[token]"
#: What stands where ``scrubbed`` cut a secret or a link out of a person's text.
CUT = "[…]"
#: The characters of a secret in a path (it ends at the next segment, query or quote).
SECRET_IN_PATH = r"[^/?#\s\"'<>]+"
#: ``Authorization: Bearer <token>``, as a header dump or an error message may show it.
_BEARER = re.compile(r"(\bbearer\s+)[^\s\"',;]+", re.I)
#: A seat token anywhere (an itsdangerous payload and signature, both base64url).
_SEAT_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{12,}\.[A-Za-z0-9_\-]{16,}")
#: A reply address's token, alone (``<game>-<seat>-<move>-<key>-<signature>``).
REPLY_TOKEN_SHAPE = r"([a-z0-9]{4,16})-([01])-(\d{1,5})-(\d{1,5})-([a-z2-7]{24})"
_REPLY_TOKEN = re.compile(rf"(?<![A-Za-z0-9]){REPLY_TOKEN_SHAPE}(?![A-Za-z0-9])", re.I)
#: The part after ``+`` of a plus address, however it is written: ``play+x@d``,
#: ``"play+x"@d`` (a quoted local part), ``<play+x>`` (no domain).
_PLUS_TOKEN = re.compile(r"(?<=\+)[A-Za-z0-9._=\-]{8,}")
#: A sign-in token (``secrets.token_urlsafe(32)``: 43 base64url characters, no dot), or
#: any run that long of both cases: a hex digest (one case) is not one.
_SIGN_IN_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_\-])(?=[A-Za-z0-9_\-]*[a-z])(?=[A-Za-z0-9_\-]*[A-Z])[A-Za-z0-9_\-]{32,}"
)
#: What a mail client would make a link of: a URL, a ``www.`` host, an address (also with
#: a quoted local part, or an address literal or a bare host as its domain), or a host
#: name (``evil.example``, ``пример.рф``, ``xn--…``) with or without a path.
_LINK = re.compile(
    r"(?:\b[a-z][a-z0-9+.-]{0,30}://|\bmailto:|\bwww\d{0,3}\.)\S*"
    r"|(?:\"[^\"\n]{0,64}\"|(?<![^\s<(\[\"'])[^\s@<>()\[\]\"']{1,64})@[^\s@<>\"']+"
    r"|(?<![\w@.-])(?:[^\W_](?:[\w-]{0,61}[^\W_])?\.){1,10}"
    r"(?:[^\W\d_]{2,63}|xn--[a-z0-9-]{1,59})\b(?:[/:?#]\S*)?",
    re.I,
)

_routes: dict[str, re.Pattern[str]] = {}


def mask_routes(patterns: Iterable[str]) -> None:
    """Mask the secret of each route pattern from now on, in this process.

    Each pattern is a regular expression of a path up to its secret, which is its one
    group (``/s/([^/?#…]+)``); the web app makes them from its URL map.
    """
    for pattern in patterns:
        _routes.setdefault(pattern, re.compile(pattern))


def redact(text: str, mask: str = MASK) -> str:
    """``text`` with every secret it carries replaced by ``mask``: a secret route's
    secret, a bearer token, a seat, reply or sign-in token however it is wrapped."""
    for route in _routes.values():
        text = route.sub(lambda match: _masked(match, mask), text)
    text = _BEARER.sub(lambda match: match.group(1) + mask, text)
    text = _PLUS_TOKEN.sub(mask, text)
    text = _REPLY_TOKEN.sub(mask, text)
    text = _SEAT_TOKEN.sub(mask, text)
    return _SIGN_IN_TOKEN.sub(mask, text)


def scrubbed(text: str) -> str:
    """A person's text as the server may keep or show it to anyone: every secret (as
    ``redact``) and every link or address cut out (``CUT``). The one rule for refusal
    quotes and reasons, access-log details, challenge notes and notes to the opponent."""
    return _LINK.sub(CUT, redact(text, CUT))


def _masked(match: re.Match[str], mask: str) -> str:
    start, end = match.span(1)
    whole = match.group(0)
    return whole[: start - match.start()] + mask + whole[end - match.start() :]


def scrub(record: logging.LogRecord) -> None:
    """Redact a record in place: its message with its arguments, its traceback, its stack."""
    try:
        message = record.getMessage()
    except Exception:  # arguments that do not fit: the handler reports it as usual
        return
    record.msg, record.args = redact(message), ()
    if record.exc_info and not record.exc_text:
        record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
    if record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


def install() -> None:
    """Make every log record of this process redacted as it is made (once; idempotent)."""
    made = logging.getLogRecordFactory()
    if getattr(made, "redacts", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = made(*args, **kwargs)
        scrub(record)
        return record

    factory.redacts = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
