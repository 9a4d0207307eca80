"""The outbox's recorder: queue rows, find the due ones, claim one and mark it sent or failed.

Mails are rows written in the transaction that caused them (docs/architecture.md, invariant 5);
the scheduler's delivery claims one row at a time in a transaction of its own. A
claim locks the row with ``SKIP LOCKED`` on PostgreSQL, so a second sender passes
over a row being sent; on SQLite the second sender waits for the write lock
(``BEGIN IMMEDIATE``) and then finds the row no longer pending.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, delete, func, insert, or_, select
from sqlalchemy.orm import Session

from .models import OutboxMessage

#: Compiled once; no RETURNING, so on PostgreSQL it is pipelined with the move's INSERT.
INSERT = insert(OutboxMessage.__table__).inline()
_BY_KEY = select(OutboxMessage.id).where(OutboxMessage.dedupe_key == bindparam("key"))
_CLAIM = (
    select(OutboxMessage)
    .where(OutboxMessage.id == bindparam("row_id"), OutboxMessage.status == "pending")
    .with_for_update(skip_locked=True)
)


def undeliverable(address: str) -> bool:
    """An address in the reserved ``.invalid`` domain (RFC 2606), as an erased player's
    seats have: no mail is queued for it, and none is sent there."""
    domain = address.rpartition("@")[2].rstrip(".").casefold()
    return domain == "invalid" or domain.endswith(".invalid")


def queue_all(session: Session, messages: list[dict[str, Any]]) -> None:
    """Queue these rows in one statement (a move's two mails go in one round trip); a row
    to an address that takes no mail (``undeliverable``) is left out.

    A plain INSERT rather than ORM objects: the unit of work's bookkeeping cost
    more than the statement itself.
    """
    messages = [m for m in messages if not undeliverable(m["to_addr"])]
    if messages:
        session.connection().execute(INSERT, messages)


def queued(session: Session, dedupe_key: str) -> bool:
    """Whether a mail with this key (a reminder, a warning, a digest) is queued already."""
    return session.scalar(_BY_KEY, {"key": dedupe_key}) is not None


def queue(session: Session, mail: dict[str, Any]) -> bool:
    """Queue one row; with its ``dedupe_key`` already queued, or to an address that takes
    no mail, queue nothing and return False."""
    key = mail["dedupe_key"]
    if undeliverable(mail["to_addr"]) or (key is not None and queued(session, key)):
        return False
    queue_all(session, [mail])
    return True


def drop_unsent(session: Session, address: str, seats: list[tuple[int, int]]) -> int:
    """Delete the mails not sent yet to ``address`` (in any case) or to these seats
    (``(game_id, seat)``), an erased account's: they hold its old name and address.
    Returns how many."""
    to = [func.lower(OutboxMessage.to_addr) == address.lower()]
    for n in sorted({n for _, n in seats}):
        games = [g for g, m in seats if m == n]
        to.append(and_(OutboxMessage.seat == n, OutboxMessage.game_id.in_(games)))
    result = session.execute(
        delete(OutboxMessage)
        .where(OutboxMessage.status != "sent", or_(*to))
        .execution_options(synchronize_session=False)
    )
    return result.rowcount or 0


def recent(
    session: Session,
    limit: int = 200,
    statuses: tuple[str, ...] | None = None,
    *,
    offset: int = 0,
) -> list[OutboxMessage]:
    """The newest rows first, optionally only those in ``statuses``; ``offset`` rows skipped
    (a page of the dev inbox)."""
    query = select(OutboxMessage).order_by(OutboxMessage.id.desc()).limit(limit).offset(offset)
    if statuses:
        query = query.where(OutboxMessage.status.in_(statuses))
    return list(session.scalars(query))


def count(session: Session) -> int:
    """How many rows the outbox holds, sent or not."""
    return session.scalar(select(func.count()).select_from(OutboxMessage)) or 0


def due(session: Session, now: datetime, limit: int) -> list[int]:
    """The ids of the pending rows whose time has come, oldest first."""
    return list(
        session.scalars(
            select(OutboxMessage.id)
            .where(OutboxMessage.status == "pending", OutboxMessage.next_attempt_at <= now)
            .order_by(OutboxMessage.id)
            .limit(limit)
        )
    )


def claim(session: Session, row_id: int) -> OutboxMessage | None:
    """Lock a still pending row for this transaction; None if it is sent, failed or taken."""
    return session.scalars(_CLAIM, {"row_id": row_id}).one_or_none()


def mark_sent(row: OutboxMessage, now: datetime) -> None:
    """A claimed row went out: it is never sent again."""
    row.status, row.sent_at, row.last_error = "sent", now, None
    row.attempts += 1


def mark_failed(row: OutboxMessage, error: str, retry_at: datetime | None) -> None:
    """A claimed row did not go out: try again at ``retry_at``, or (None) give up."""
    row.attempts += 1
    row.last_error = error[:2000]
    if retry_at is None:
        row.status = "failed"
    else:
        row.next_attempt_at = retry_at


def mark_dropped(row: OutboxMessage, reason: str) -> None:
    """A claimed row is no longer wanted (its reader saw what it tells): never sent."""
    row.status, row.last_error = "dropped", reason[:2000]


def requeue(session: Session, row_id: int, now: datetime) -> OutboxMessage | None:
    """Put a failed (or pending) row back in line to be sent at once; None if sent or absent."""
    row = session.get(OutboxMessage, row_id)
    if row is None or row.status == "sent":
        return None
    row.status, row.next_attempt_at = "pending", now
    return row
