"""The rate limits' recorder: a ``limits`` storage in the ``rate_limits`` table.

Every gunicorn worker, and every machine sharing the database, counts in the same
windows, on SQLite and PostgreSQL alike: a hit is one atomic upsert that returns the
new count, in the dialect's own ``INSERT … ON CONFLICT``. Time comes from the
injected clock, so tests move it.
"""

from __future__ import annotations

from limits.storage import Storage
from sqlalchemy import case, delete, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from ..clock import Clock
from .db import Database, is_sqlite, rowcount
from .models import RateLimit


class SqlStorage(Storage):
    """A ``limits`` storage in the ``rate_limits`` table, on the injected clock."""

    STORAGE_SCHEME = None  # made directly, never from a URI

    def __init__(self, db: Database, clock: Clock) -> None:
        super().__init__()
        self.db, self.clock = db, clock
        self._insert = sqlite_insert if is_sqlite(db.url) else pg_insert

    @property
    def base_exceptions(self) -> type[Exception]:
        return SQLAlchemyError

    def _now(self) -> float:
        return self.clock.now().timestamp()

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        """Count ``amount`` hits in the key's window, opening a new one if it ended."""
        now = self._now()
        ended = RateLimit.expires_at <= now
        statement = (
            self._insert(RateLimit)
            .values(key=key, hits=amount, expires_at=now + expiry)
            .on_conflict_do_update(
                index_elements=[RateLimit.key],
                set_={
                    "hits": case((ended, amount), else_=RateLimit.hits + amount),
                    "expires_at": case((ended, now + expiry), else_=RateLimit.expires_at),
                },
            )
            .returning(RateLimit.hits)
        )
        with self.db.write() as session:
            return int(session.execute(statement).scalar_one())

    def _row(self, key: str) -> RateLimit | None:
        with self.db.read() as session:
            row = session.get(RateLimit, key)
        return row if row is not None and row.expires_at > self._now() else None

    def get(self, key: str) -> int:
        row = self._row(key)
        return row.hits if row else 0

    def get_expiry(self, key: str) -> float:
        row = self._row(key)
        return row.expires_at if row else self._now()

    def check(self) -> bool:
        with self.db.read() as session:
            return session.scalar(select(func.count()).select_from(RateLimit)) is not None

    def reset(self) -> int | None:
        with self.db.write() as session:
            return rowcount(session.execute(delete(RateLimit)))

    def clear(self, key: str) -> None:
        with self.db.write() as session:
            session.execute(delete(RateLimit).where(RateLimit.key == key))


def purge(session: Session, now: float) -> int:
    """Delete the windows that ended by ``now`` (a timestamp); returns how many."""
    done = session.execute(delete(RateLimit).where(RateLimit.expires_at <= now))
    return int(rowcount(done))
