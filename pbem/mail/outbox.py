"""The outbox: mails are rows written in the transaction that caused them (invariant 5).

Nothing is sent inside a request; ``deliver_due`` hands due rows to a backend.
A row holds its words, or (a mail telling of a move) the log entry they are
written from when it is sent.
Each row's ``Message-ID`` is fixed when it is queued, so a mail resent after a
crash carries the same id and a mail client shows it once.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from ..store.models import OutboxMessage

INSERT_OUTBOX = insert(OutboxMessage.__table__).inline()  # compiled once; no RETURNING: pipelined


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
) -> dict[str, Any]:
    """One outbox row's values, its ``Message-ID`` fixed now.

    ``to`` is the bare address and ``to_name`` the recipient's name: the ``To`` header is
    built from the two as an address object when the mail is sent (``mail.headers``).

    ``language`` is the one the mail is written in: its ``Content-Language``
    header lets a mail client pick fonts, direction and spelling for it. A mail
    that tells of logged move ``about_n`` may come without its words: they are
    written from the log when it is sent.
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
        created_at=now,
        status="pending",
        attempts=0,
        next_attempt_at=now,
    )


def queue_all(session: Session, messages: list[dict[str, Any]]) -> None:
    """Queue these rows in one statement (a move's two mails go in one round trip).

    A plain INSERT rather than ORM objects: the unit of work's bookkeeping cost
    more than the statement itself.
    """
    if messages:
        session.execute(INSERT_OUTBOX, messages)


def queued(session: Session, dedupe_key: str) -> bool:
    """Whether a mail with this key (a reminder, a warning, a digest) is queued already."""
    found = session.scalar(select(OutboxMessage.id).where(OutboxMessage.dedupe_key == dedupe_key))
    return found is not None


def queue(session: Session, mail: dict[str, Any]) -> bool:
    """Queue one ``message``; with its ``dedupe_key`` already queued, queue nothing and
    return False."""
    key = mail["dedupe_key"]
    if key is not None and queued(session, key):
        return False
    queue_all(session, [mail])
    return True


def recent(
    session: Session, limit: int = 200, statuses: tuple[str, ...] | None = None
) -> list[OutboxMessage]:
    query = select(OutboxMessage).order_by(OutboxMessage.id.desc()).limit(limit)
    if statuses:
        query = query.where(OutboxMessage.status.in_(statuses))
    return list(session.scalars(query))


def retry(session: Session, row_id: int, now: datetime) -> OutboxMessage | None:
    """Put a failed (or pending) row back in line to be sent at once."""
    row = session.get(OutboxMessage, row_id)
    if row is None or row.status == "sent":
        return None
    row.status, row.next_attempt_at = "pending", now
    return row
