"""Mail headers that no name, subject or address can break out of (invariant 9).

Addresses are built from (display name, address) pairs as ``email.headerregistry.Address``
objects, never by formatting a string the header parser would read again: a name such
as ``Bob <other@example.net>, Bob`` stays one quoted display name of one recipient.

The email package decodes RFC 2047 encoded words while it parses a header value, so a
name like ``=?utf-8?q?=0D=0ABcc:_x@example.net?=`` becomes a real line break, and a
real ``Bcc:`` line, when the message is written. Python 3.11.10 and later refuse that
(``verify_generated_headers``); ``POLICY`` does the same check on every Python this
project supports: a folded header whose lines do not all continue it is an error, so
the message is never sent.
"""

from __future__ import annotations

import re
from email.headerregistry import Address
from email.policy import SMTP as _SMTP
from email.policy import EmailPolicy
from typing import Any


class HeaderInjection(ValueError):
    """A header would have come out as more than one header (or none)."""


#: A line break not followed by folding white space: the start of a new header.
_NEW_HEADER = re.compile(r"\r\n[^ \t]|\r[^ \n\t]|\n[^ \t]")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _verify(name: str, folded: str) -> None:
    body = folded.rstrip("\r\n")
    if _NEW_HEADER.search(body) or "\r" in body.replace("\r\n", "") or not body:
        raise HeaderInjection(f"the {name} header would break into another header")


class StrictPolicy(EmailPolicy):
    """``email.policy.SMTP`` that checks every header as it is written (see module doc)."""

    def fold(self, name: str, value: Any) -> str:
        folded = super().fold(name, value)
        _verify(name, folded)
        return folded

    def fold_binary(self, name: str, value: Any) -> bytes:
        folded = super().fold_binary(name, value)
        _verify(name, folded.decode("ascii", "surrogateescape"))
        return folded


#: ``email.policy.SMTP`` (CRLF line ends) with the check.
POLICY = StrictPolicy(linesep=_SMTP.linesep)


def address(addr: str, name: str | None = None) -> Address:
    """One recipient. Raises ``HeaderInjection`` for control characters in either part, and
    ``ValueError`` (from the email package) for an address it cannot take."""
    if _CONTROL.search(addr) or (name and _CONTROL.search(name)):
        raise HeaderInjection("a control character in an address or a display name")
    if "@" not in addr:
        raise ValueError(f"{addr!r} is not an address")
    local, _, domain = addr.rpartition("@")
    return Address(display_name=name or "", username=local, domain=domain)


def text(name: str, value: str) -> str:
    """A plain header value (a subject), refused if it holds a control character."""
    if _CONTROL.search(value):
        raise HeaderInjection(f"a control character in the {name} header")
    return value
