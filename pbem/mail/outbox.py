"""The outbox: mails are rows written in the transaction that caused them (invariant 5).

Nothing is sent inside a request; ``deliver_due`` hands due rows to a backend.
Each row's ``Message-ID`` is fixed when it is queued, so a mail resent after a
crash carries the same id and a mail client shows it once.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..store.models import OutboxMessage


def domain_of(address: str) -> str:
    return address.rsplit("@", 1)[-1].strip("<> ") or "localhost"


def thread_id(public_id: str, mail_from: str) -> str:
    """The Message-ID every mail of a game refers to, so clients thread them together."""
    return f"<game.{public_id}@{domain_of(mail_from)}>"


def queue(
    session: Session,
    *,
    now: datetime,
    mail_from: str,
    kind: str,
    to: str,
    subject: str,
    text: str,
    html: str,
    game_id: int | None = None,
    public_id: str | None = None,
    seat: int | None = None,
    headers: dict[str, str] | None = None,
) -> OutboxMessage:
    message_id = f"<{kind}.{secrets.token_hex(10)}@{domain_of(mail_from)}>"
    all_headers = dict(headers or {})
    if public_id is not None:
        root = thread_id(public_id, mail_from)
        all_headers.setdefault("In-Reply-To", root)
        all_headers.setdefault("References", root)
    row = OutboxMessage(
        message_id=message_id,
        game_id=game_id,
        seat=seat,
        kind=kind,
        to_addr=to,
        subject=subject,
        text_body=text,
        html_body=html,
        headers=all_headers,
        created_at=now,
        status="pending",
        attempts=0,
        next_attempt_at=now,
    )
    session.add(row)
    return row


def recent(session: Session, limit: int = 200) -> list[OutboxMessage]:
    return list(
        session.scalars(select(OutboxMessage).order_by(OutboxMessage.id.desc()).limit(limit))
    )
