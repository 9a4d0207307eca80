"""An outbox row's values: mails are rows written in the transaction that caused them
(invariant 5), by ``store.outbox``; nothing is sent inside a request, and
``deliver_due`` hands due rows to a backend.
A row holds its words, or (a mail telling of a move) the log entry they are
written from when it is sent.
Each row's ``Message-ID`` is fixed when it is queued, so a mail resent after a
crash carries the same id (docs/scaling.md, "What a crash can send twice").
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any


def domain_of(address: str) -> str:
    return address.rsplit("@", 1)[-1].strip("<> ") or "localhost"


def thread_id(public_id: str, seat: int, mail_from: str) -> str:
    """The Message-ID of a seat's invitation, which every later mail to that seat refers to."""
    return f"<game.{public_id}.seat{seat}@{domain_of(mail_from)}>"


def message(
    *,
    now: datetime,
    mail_from: str,
    kind: str,
    to: str,
    to_name: str | None = None,
    subject: str | None = None,
    text: str | None = None,
    html: str | None = None,
    game_id: int | None = None,
    seat: int | None = None,
    headers: dict[str, str] | None = None,
    dedupe_key: str | None = None,
    message_id: str | None = None,
    language: str | None = None,
    about_n: int | None = None,
    chain_hash: str | None = None,
    not_before: datetime | None = None,
) -> dict[str, Any]:
    """One outbox row's values, its ``Message-ID`` fixed now.

    ``to`` is the bare address and ``to_name`` the recipient's name: the ``To`` header is
    built from the two as an address object when the mail is sent (``mail.headers``).

    ``language`` is the one the mail is written in: its ``Content-Language``
    header lets a mail client pick fonts, direction and spelling for it. A mail
    that tells of logged move ``about_n`` may come without its words: they are
    written from the log when it is sent; ``chain_hash`` is that move's, kept when the
    words are pruned. ``not_before``: it is not sent before then (a "your turn" mail is
    held a few minutes, ``Config.turn_mail_hold``).
    """
    return dict(
        message_id=message_id or f"<{kind}.{secrets.token_hex(10)}@{domain_of(mail_from)}>",
        game_id=game_id,
        seat=seat,
        kind=kind,
        to_addr=to,
        to_name=to_name,
        subject=subject,
        text_body=text,
        html_body=html,
        headers={**(headers or {}), **({"Content-Language": language} if language else {})},
        dedupe_key=dedupe_key,
        about_n=about_n,
        chain_hash=chain_hash,
        created_at=now,
        status="pending",
        attempts=0,
        next_attempt_at=not_before or now,
    )
