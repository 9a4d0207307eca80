"""The outbox as an operator sees it: what waits, is being sent or failed, and sending a
row again.

The ``pbem outbox`` commands call these, so the CLI changes no row itself.
"""

from __future__ import annotations

from ...store import outbox as outbox_store
from ...store.models import OutboxMessage
from ..core.env import Env


def listing(env: Env, *, show_all: bool = False, limit: int = 500) -> list[OutboxMessage]:
    """The newest rows first: those not sent (pending, sending, failed), or (``show_all``)
    every one."""
    unsent = ("pending", "sending", "failed")
    with env.db.read() as session:
        return outbox_store.recent(session, limit, None if show_all else unsent)


def retry(env: Env, row_id: int) -> bool:
    """Put an unsent row back in line for the next delivery run; False if sent or unknown.

    A row left ``sending`` by a sender that died may have reached the relay: sent again
    now, it goes out with the same Message-ID (without this, it goes after
    PBEM_MAIL_RECOVER_AFTER)."""
    with env.db.write() as session:
        return outbox_store.requeue(session, row_id, env.clock.now()) is not None
