"""The outbox's recorder: queue rows, find the due ones, claim one and mark it sent or failed.

Mails are rows written in the transaction that caused them (docs/architecture.md, invariant 5);
a row to an address that bounces is held (``due`` passes over it: ``NEVER_HELD``
aside); the scheduler's delivery claims one row at a time in a transaction of its own and
commits it as ``sending`` before it speaks to the relay; a second transaction records
the outcome. A claim locks the row with ``SKIP LOCKED`` on PostgreSQL, so a second
sender passes over a row being claimed; on SQLite the second sender waits for the write
lock (``BEGIN IMMEDIATE``); either then finds it ``sending`` and not due.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    Table,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from .db import rowcount
from .models import Bouncing, OutboxMessage

#: Compiled once; no RETURNING, so on PostgreSQL it is pipelined with the move's INSERT.
INSERT = insert(cast(Table, OutboxMessage.__table__)).inline()
_BY_KEY = select(OutboxMessage.id).where(OutboxMessage.dedupe_key == bindparam("key"))
#: Rows a sender may claim: pending ones, and sending ones whose sender never said how
#: it went (it died or hung after claiming them) once their recovery time has come.
CLAIMABLE = ("pending", "sending")
_CLAIM = (
    select(OutboxMessage)
    .where(
        OutboxMessage.id == bindparam("row_id"),
        OutboxMessage.status.in_(CLAIMABLE),
        OutboxMessage.next_attempt_at <= bindparam("now"),
    )
    .with_for_update(skip_locked=True)
)


#: Mails sent even to an address that bounces: signing in is how its player verifies it
#: again, and the others go to a new address or tell its owner of one.
NEVER_HELD = ("sign_in", "change_email", "address_taken")
#: Rows held back: to an address that bounces (``store/bounces.py``), unless NEVER_HELD.
_HELD = and_(
    func.lower(OutboxMessage.to_addr).in_(select(Bouncing.address)),
    OutboxMessage.kind.not_in(NEVER_HELD),
)


def held(session: Session, row: OutboxMessage) -> bool:
    """Whether this row is held back: its address bounces. It stays pending, not lost."""
    if row.kind in NEVER_HELD:
        return False
    return session.get(Bouncing, row.to_addr.strip().casefold()) is not None


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


def last_queued(session: Session, game_id: int, seat: int, kind: str) -> datetime | None:
    """When the game's latest mail of this kind to this seat was queued (None: never)."""
    return session.scalar(
        select(func.max(OutboxMessage.created_at)).where(
            OutboxMessage.game_id == game_id, OutboxMessage.seat == seat, OutboxMessage.kind == kind
        )
    )


def queue(session: Session, mail: dict[str, Any]) -> bool:
    """Queue one row; with its ``dedupe_key`` already queued, or to an address that takes
    no mail, queue nothing and return False."""
    key = mail["dedupe_key"]
    if undeliverable(mail["to_addr"]) or (key is not None and queued(session, key)):
        return False
    queue_all(session, [mail])
    return True


def _to(addresses: list[str], seats: list[tuple[int, int]]) -> Any:
    """Rows to any of ``addresses`` (in any case) or to these seats (``(game_id, seat)``)."""
    to: list[ColumnElement[bool]] = [
        func.lower(OutboxMessage.to_addr).in_([a.lower() for a in addresses])
    ]
    for n in sorted({n for _, n in seats}):
        games = [g for g, m in seats if m == n]
        to.append(and_(OutboxMessage.seat == n, OutboxMessage.game_id.in_(games)))
    return or_(*to)


def drop_unsent(session: Session, addresses: list[str], seats: list[tuple[int, int]]) -> int:
    """Delete the mails not sent yet to ``addresses`` or to these seats, an erased
    account's: they hold its old name and address. Returns how many."""
    result = session.execute(
        delete(OutboxMessage)
        .where(OutboxMessage.status != "sent", _to(addresses, seats))
        .execution_options(synchronize_session=False)
    )
    return rowcount(result) or 0


#: What pruning a row's words sets: the Message-ID, recipient, kind, times, the move it
#: told of and its chain hash stay.
_PRUNED: dict[str, Any] = dict(
    subject=None, text_body=None, html_body=None, headers={}, last_error=None
)


def forget_recipient(
    session: Session,
    addresses: list[str],
    seats: list[tuple[int, int]],
    placeholder: str,
    label: str,
    now: datetime,
) -> int:
    """The sent mails to an erased account: its words pruned, the recipient a placeholder,
    a digest's key (which holds the address) gone. Returns how many."""
    result = session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.status == "sent", _to(addresses, seats))
        .values(
            **_PRUNED,
            to_addr=placeholder,
            to_name=label,
            dedupe_key=None,
            pruned_at=func.coalesce(OutboxMessage.pruned_at, now),
        )
        .execution_options(synchronize_session=False)
    )
    return rowcount(result) or 0


def forget_asked(session: Session, addresses: list[str], label: str, now: datetime) -> int:
    """The confirmations of a new address an erased account asked for and never confirmed
    (they name it): dropped if not sent, else their words pruned and the name the label;
    the address, perhaps someone else's, stays. Returns how many."""
    if not addresses:
        return 0
    to = and_(
        OutboxMessage.kind == "change_email",
        func.lower(OutboxMessage.to_addr).in_(addresses),
    )
    dropped = session.execute(
        delete(OutboxMessage)
        .where(OutboxMessage.status != "sent", to)
        .execution_options(synchronize_session=False)
    )
    pruned = session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.status == "sent", to)
        .values(**_PRUNED, to_name=label, pruned_at=func.coalesce(OutboxMessage.pruned_at, now))
        .execution_options(synchronize_session=False)
    )
    return (rowcount(dropped) or 0) + (rowcount(pruned) or 0)


def prune_sent_about(session: Session, game_ids: list[int], name: str, now: datetime) -> int:
    """Prune the words of the sent mails that may name a person to others: every mail of
    their games, and the digests that name them. Returns how many."""
    about: ColumnElement[bool] = OutboxMessage.game_id.in_(game_ids)
    if name:
        about = or_(
            about,
            and_(
                OutboxMessage.kind == "digest",
                OutboxMessage.text_body.contains(name, autoescape=True),
            ),
        )
    result = session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.status == "sent", OutboxMessage.pruned_at.is_(None), about)
        .values(**_PRUNED, pruned_at=now)
        .execution_options(synchronize_session=False)
    )
    return rowcount(result) or 0


def unsent_about(session: Session, game_ids: list[int]) -> list[OutboxMessage]:
    """The mails not sent yet of these games, and every digest not sent yet."""
    return list(
        session.scalars(
            select(OutboxMessage)
            .where(
                OutboxMessage.status != "sent",
                or_(OutboxMessage.game_id.in_(game_ids), OutboxMessage.kind == "digest"),
            )
            .order_by(OutboxMessage.id)
        )
    )


def unwrite(row: OutboxMessage) -> None:
    """Drop a row's words: a mail that tells of a logged move is written again from the
    log when it is sent (``mailing.writer.Writer``)."""
    row.subject = row.text_body = row.html_body = None


def prunable(session: Session, cutoff: datetime, limit: int) -> list[int]:
    """Up to ``limit`` ids of sent rows, sent before ``cutoff``, whose words are still kept."""
    return list(
        session.scalars(
            select(OutboxMessage.id)
            .where(
                OutboxMessage.pruned_at.is_(None),
                OutboxMessage.sent_at < cutoff,
                OutboxMessage.status == "sent",
            )
            .order_by(OutboxMessage.sent_at, OutboxMessage.id)
            .limit(limit)
        )
    )


def prune(session: Session, row_ids: list[int], now: datetime) -> int:
    """Drop the words of these sent rows (those not pruned already). Returns how many."""
    if not row_ids:
        return 0
    result = session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.id.in_(row_ids),
            OutboxMessage.pruned_at.is_(None),
            OutboxMessage.status == "sent",
        )
        .values(**_PRUNED, pruned_at=now)
        .execution_options(synchronize_session=False)
    )
    return rowcount(result) or 0


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
    """The ids of the rows to claim now, oldest first: pending ones whose time has come,
    and sending ones left by a sender that stopped, once their recovery time has come."""
    return list(
        session.scalars(
            select(OutboxMessage.id)
            .where(
                OutboxMessage.status.in_(CLAIMABLE),
                OutboxMessage.next_attempt_at <= now,
                ~_HELD,
            )
            .order_by(OutboxMessage.id)
            .limit(limit)
        )
    )


def claim(session: Session, row_id: int, now: datetime) -> OutboxMessage | None:
    """Lock a due row for this transaction; None if it is sent, failed, not due or taken."""
    return session.scalars(_CLAIM, {"row_id": row_id, "now": now}).one_or_none()


def mark_sending(row: OutboxMessage, now: datetime, recover_at: datetime, token: int | None) -> int:
    """A claimed row is about to go to the relay, as attempt number returned (what its
    outcome is recorded against). Committed before the relay is spoken to: should the
    sender die before recording the outcome, the row is claimed again at ``recover_at``."""
    row.status, row.sending_at, row.sending_token = "sending", now, token
    row.next_attempt_at = recover_at
    row.attempts += 1
    return row.attempts


def _outcome(row_id: int, attempt: int) -> Any:
    return update(OutboxMessage).where(
        OutboxMessage.id == row_id,
        OutboxMessage.status == "sending",
        OutboxMessage.attempts == attempt,
    )


def mark_sent(session: Session, row_id: int, attempt: int, now: datetime) -> bool:
    """The relay accepted attempt ``attempt`` of the row: it is never sent again. False if
    the row was claimed again meanwhile (its recovery time came first) or deleted."""
    done = session.execute(
        _outcome(row_id, attempt).values(status="sent", sent_at=now, last_error=None)
    )
    return rowcount(done) == 1


def mark_failed(
    session: Session, row_id: int, attempt: int, error: str, retry_at: datetime | None
) -> bool:
    """Attempt ``attempt`` did not go out: try again at ``retry_at``, or (None) give up."""
    values: dict[str, Any] = {"last_error": error[:2000]}
    if retry_at is None:
        values["status"] = "failed"
    else:
        values["status"], values["next_attempt_at"] = "pending", retry_at
    return rowcount(session.execute(_outcome(row_id, attempt).values(**values))) == 1


def mark_bounced(session: Session, row_id: int, error: str, attempt: int | None = None) -> bool:
    """The mail came back (a permanent refusal, or a delivery status notification later):
    never sent again. ``attempt``: only if that attempt is still the row's one being sent.
    False if it was not changed (bounced already, or claimed again meanwhile)."""
    if attempt is None:
        query = update(OutboxMessage).where(
            OutboxMessage.id == row_id, OutboxMessage.status != "bounced"
        )
    else:
        query = _outcome(row_id, attempt)
    return rowcount(session.execute(query.values(status="bounced", last_error=error[:2000]))) == 1


def readdress(session: Session, old: str, new: str) -> int:
    """Send the mails not sent yet to ``old`` (any case) to ``new`` instead (a player's
    confirmed new address); returns how many."""
    done = session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.status == "pending",
            func.lower(OutboxMessage.to_addr) == old.strip().casefold(),
        )
        .values(to_addr=new)
        .execution_options(synchronize_session=False)
    )
    return rowcount(done)


def mark_dropped(row: OutboxMessage, reason: str) -> None:
    """A claimed row is no longer wanted (its reader saw what it tells): never sent."""
    row.status, row.last_error = "dropped", reason[:2000]


def requeue(session: Session, row_id: int, now: datetime) -> OutboxMessage | None:
    """Put a failed (or pending, or sending) row back in line to be sent at once; None if
    sent or absent. A sending one may have reached the relay: it goes again, same Message-ID."""
    row = session.get(OutboxMessage, row_id)
    if row is None or row.status == "sent":
        return None
    row.status, row.next_attempt_at = "pending", now
    return row
