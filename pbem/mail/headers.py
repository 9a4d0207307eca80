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
from email.header import Header
from email.headerregistry import Address, AddressHeader, HeaderRegistry, UnstructuredHeader
from email.policy import SMTP as _SMTP
from email.policy import EmailPolicy
from typing import Any, cast


class HeaderInjection(ValueError):
    """A header would have come out as more than one header (or none)."""


#: A line break not followed by folding white space: the start of a new header.
_NEW_HEADER = re.compile(r"\r\n[^ \t]|\r[^ \n\t]|\n[^ \t]")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _verify(name: str, folded: str) -> None:
    body = folded.rstrip("\r\n")
    if _NEW_HEADER.search(body) or "\r" in body.replace("\r\n", "") or not body:
        raise HeaderInjection(f"the {name} header would break into another header")


def _encoded(name: str, value: Any, policy: EmailPolicy) -> str | None:
    """A non-ASCII plain header (a subject) as encoded words with every space inside one.

    The email package's folder of Python 3.11 puts the space it folds at between two
    encoded words, where RFC 2047 §6.2 makes readers drop it ("σύνδεσμοςσύνδεσής"); the
    package's own ``Header`` encoder keeps each space in a word. None: fold as usual.
    """
    if not isinstance(value, UnstructuredHeader) or str(value).isascii():
        return None
    if _CONTROL.search(str(value)):  # decoded from an encoded word: refused as it folds
        return None
    words = Header(str(value), "utf-8", header_name=name)
    return f"{name}: {words.encode(linesep=policy.linesep, maxlinelen=policy.max_line_length)}" + (
        policy.linesep
    )


class StrictPolicy(EmailPolicy):
    """``email.policy.SMTP`` that checks every header as it is written (see module doc), and
    writes a non-ASCII subject so that it reads back as it was (``_encoded``)."""

    def fold(self, name: str, value: Any) -> str:
        folded = _encoded(name, value, self) or super().fold(name, value)
        _verify(name, folded)
        return folded

    def fold_binary(self, name: str, value: Any) -> bytes:
        encoded = _encoded(name, value, self)
        folded = encoded.encode("ascii") if encoded else super().fold_binary(name, value)
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


def mailbox(value: str) -> Address:
    """The server's own From (``Config.mail_from``, checked at start as one mailbox) as an
    address object, so its display name is encoded and quoted as it must be."""
    header = cast(AddressHeader, HeaderRegistry()("From", value))
    (box,) = header.addresses
    return address(box.addr_spec, box.display_name)


#: The mails that answer a person's own mail (RFC 3834 §5: ``auto-replied``); every other
#: mail of the server is ``auto-generated``.
AUTO_REPLIED = frozenset({"refusal"})


def auto_submitted(kind: str) -> str:
    """The ``Auto-Submitted`` value of a mail of this kind: none is written by a person."""
    return "auto-replied" if kind in AUTO_REPLIED else "auto-generated"


def text(name: str, value: str) -> str:
    """A plain header value (a subject), refused if it holds a control character."""
    if _CONTROL.search(value):
        raise HeaderInjection(f"a control character in the {name} header")
    return value
