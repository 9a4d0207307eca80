"""No bearer secret in any log (docs/architecture.md, invariant 6).

A seat link, a sign-in link, an API token and a reply address each let their holder act
as a player, so none may reach a log line: not the development server's request log,
not gunicorn's access or error log, not a traceback, not the inbound receiver's log of
the SMTP conversation. ``install()`` makes every log record of the process pass through
``redact`` as it is made (a record factory, so no logger, handler or library can be
forgotten), and the web app adds its token routes with ``mask_routes``: the routes are
read from its URL map, so a new route with a ``<secret:…>`` argument is masked too.
What stands in a secret's place is ``[token]``.
"""

from __future__ import annotations

import logging
import re
import traceback
from collections.abc import Iterable
from typing import Any

MASK = "[token]"
#: The characters of a secret in a path (it ends at the next segment, query or quote).
SECRET_IN_PATH = r"[^/?#\s\"'<>]+"
#: ``Authorization: Bearer <token>``, as a header dump or an error message may show it.
_BEARER = re.compile(r"(\bbearer\s+)[^\s\"',;]+", re.I)
#: A seat token anywhere (an itsdangerous payload and signature, both base64url).
_SEAT_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{12,}\.[A-Za-z0-9_\-]{16,}")
#: The part after ``+`` of a plus address: a reply address's token.
_PLUS_TOKEN = re.compile(r"(?<=\+)[A-Za-z0-9._=\-]{8,}(?=@)")

_routes: dict[str, re.Pattern[str]] = {}


def mask_routes(patterns: Iterable[str]) -> None:
    """Mask the secret of each route pattern from now on, in this process.

    Each pattern is a regular expression of a path up to its secret, which is its one
    group (``/s/([^/?#…]+)``); the web app makes them from its URL map.
    """
    for pattern in patterns:
        _routes.setdefault(pattern, re.compile(pattern))


def redact(text: str) -> str:
    """``text`` with every secret it carries replaced by ``[token]``."""
    for route in _routes.values():
        text = route.sub(_masked, text)
    text = _BEARER.sub(rf"\g<1>{MASK}", text)
    text = _PLUS_TOKEN.sub(MASK, text)
    return _SEAT_TOKEN.sub(MASK, text)


def _masked(match: re.Match[str]) -> str:
    start, end = match.span(1)
    whole = match.group(0)
    return whole[: start - match.start()] + MASK + whole[end - match.start() :]


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
