"""The outbox as an operator sees it: what waits, is being sent or failed, and sending a
row again; and as a developer reads it (the development inbox, ``/dev/inbox``).

The ``pbem outbox`` commands and the development inbox call these, so neither the CLI
nor the web tier reads or changes a row itself.
"""

from __future__ import annotations

from typing import Any

from markupsafe import escape

from ...store import outbox as outbox_store
from ...store.models import OutboxMessage
from ..core.env import Env
from .seat_mail import Written
from .writer import Writer


def listing(env: Env, *, show_all: bool = False, limit: int = 500) -> list[OutboxMessage]:
    """The newest rows first: those not sent (pending, sending, failed, bounced), or
    (``show_all``) every one."""
    unsent = ("pending", "sending", "failed", "bounced")
    with env.db.read() as session:
        return outbox_store.recent(session, limit, None if show_all else unsent)


def _words(writer: Writer, session: Any, row: OutboxMessage) -> Written:
    """A mail's words: stored once sent, else written now as the sender would (nothing saved)."""
    if row.pruned_at is not None:  # kept no longer than the retention period (or erased)
        gone = f"its words were pruned at {row.pruned_at:%Y-%m-%d %H:%M} (retention, or erasure)"
        return Written(f"({row.kind}: {gone})", gone, f"<p>{escape(gone)}</p>", {})
    try:
        return writer.written(session, row)
    except Exception as exc:  # a dev tool shows why a mail cannot be written, and goes on
        error = f"cannot be written: {type(exc).__name__}: {exc}"
        return Written(f"({row.kind}: {error})", error, f"<p>{escape(error)}</p>", {})


def count(env: Env) -> int:
    """How many rows the outbox holds, sent or not."""
    with env.db.read() as session:
        return outbox_store.count(session)


def read(env: Env, limit: int, offset: int = 0) -> list[tuple[OutboxMessage, Written]]:
    """The newest rows from ``offset`` on, each with its words (the development inbox)."""
    writer = Writer(env)
    with env.db.read() as session:
        rows = outbox_store.recent(session, limit, offset=offset)
        return [(row, _words(writer, session, row)) for row in rows]


def read_one(env: Env, message_id: int) -> tuple[OutboxMessage, Written] | None:
    """One row and its words, or None if there is no such row."""
    with env.db.read() as session:
        row = session.get(OutboxMessage, message_id)
        return None if row is None else (row, _words(Writer(env), session, row))


def retry(env: Env, row_id: int) -> bool:
    """Put an unsent row back in line for the next delivery run; False if sent or unknown.

    A row left ``sending`` by a sender that died may have reached the relay: sent again
    now, it goes out with the same Message-ID (without this, it goes after
    PBEM_MAIL_RECOVER_AFTER)."""
    with env.db.write() as session:
        return outbox_store.requeue(session, row_id, env.clock.now()) is not None
