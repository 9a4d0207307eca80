"""The scheduler's lease: one row saying which scheduler is active, until when, and under
which fencing token (``pbem/leadership.py`` decides when to take, renew and check it).

On PostgreSQL every write transaction of the active scheduler reads the row
``FOR KEY SHARE`` (``token``); a takeover locks it ``FOR UPDATE``, so it waits for the
old holder's transactions in flight, and every later one of theirs sees the new token.
A renewal changes no key column, so it never waits for its own scheduler's jobs. On
SQLite every write transaction holds the database lock, which orders them the same way.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine, bindparam, event, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..clock import as_utc
from .db import rowcount
from .models import SchedulerLease

#: The row's key: the one lease there is.
NAME = "scheduler"

_TOKEN = (
    select(SchedulerLease.token)
    .where(SchedulerLease.name == NAME)
    .with_for_update(read=True, key_share=True)
)
_RENEW = (
    update(SchedulerLease)
    .where(SchedulerLease.name == NAME, SchedulerLease.token == bindparam("t"))
    .values(expires_at=bindparam("until"))
)


def token(session: Session) -> int | None:
    """The current fencing token, the row kept from a takeover until this transaction ends."""
    return session.scalar(_TOKEN)


def take(session: Session, holder: str, now: datetime, until: datetime, wait: float) -> int | None:
    """Take the lease if it is unheld or lapsed; the new token, or None if another holds it.

    On PostgreSQL waits at most ``wait`` seconds for the holder's transactions in flight
    (``lock_timeout``: a hung holder's open transaction must not hang the standby too).
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text(f"SET LOCAL lock_timeout = {int(wait * 1000)}"))
    row = session.scalars(
        select(SchedulerLease).where(SchedulerLease.name == NAME).with_for_update()
    ).one_or_none()
    if row is None:
        try:
            with session.begin_nested():  # a standby inserting at the same time wins
                session.add(SchedulerLease(name=NAME, holder=holder, token=1, expires_at=until))
        except IntegrityError:
            return None
        return 1
    if as_utc(row.expires_at) > now:
        return None
    row.holder, row.token, row.expires_at = holder, row.token + 1, until
    return row.token


def renew(session: Session, token: int, until: datetime) -> bool:
    """Extend the lease held under ``token``; False if another scheduler has taken it."""
    return rowcount(session.execute(_RENEW, {"t": token, "until": until})) == 1


def release(session: Session, token: int, now: datetime) -> None:
    """End the lease held under ``token`` now, so a standby need not wait for it to lapse."""
    session.execute(_RENEW, {"t": token, "until": now})


def current(session: Session) -> SchedulerLease | None:
    """The lease row as it stands (for an operator, and for tests)."""
    return session.get(SchedulerLease, NAME)


def end_hung_transactions(engine: Engine, seconds: float) -> None:
    """On PostgreSQL, have the server end any transaction of this engine's connections
    left idle for ``seconds`` (``idle_in_transaction_session_timeout``).

    A scheduler stopped in the middle of a transaction (SIGSTOP, a frozen VM) holds its
    row locks, the lease row's among them, and a standby could never take over; ended
    by the server, it gives them up. The scheduler's transactions never wait on anything
    but the database (the computer thinks, and mail is sent, outside them).
    """
    if engine.dialect.name != "postgresql":
        return  # on SQLite a stopped writer holds the database lock: one machine, one process

    setting = f"SET idle_in_transaction_session_timeout = {int(seconds * 1000)}"

    @event.listens_for(engine, "connect")
    def _timeout(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute(setting, prepare=False)  # autocommit: for the session
        dbapi_connection.answer()  # in pipeline mode: wait for it (``postgresql.py``)

    engine.dispose()  # connections made before carry no timeout
