"""The outbox as an operator sees it: what waits or failed, and sending a row again.

The ``pbem outbox`` commands call these, so the CLI changes no row itself.
"""

from __future__ import annotations

from ..store import outbox as outbox_store
from ..store.models import OutboxMessage
from .env import Env


def listing(env: Env, *, show_all: bool = False, limit: int = 500) -> list[OutboxMessage]:
    """The newest rows first: pending and failed ones, or (``show_all``) every one."""
    with env.db.read() as session:
        return outbox_store.recent(session, limit, None if show_all else ("pending", "failed"))


def retry(env: Env, row_id: int) -> bool:
    """Put an unsent row back in line for the next delivery run; False if sent or unknown."""
    with env.db.write() as session:
        return outbox_store.requeue(session, row_id, env.clock.now()) is not None
