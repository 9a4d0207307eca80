"""Rate limits on what makes the server send mail or store things, shared through the database.

The ``limits`` library does the counting (its fixed-window strategy over limits
written as ``"5 per 10 minutes; 30 per day"``, from ``config.Limits``); this
module gives it a storage in the ``rate_limits`` table, so every gunicorn
worker, and every machine sharing the database, counts in the same windows,
on SQLite and PostgreSQL alike. A hit is one atomic upsert that returns the new
count. Time comes from the injected clock, so tests move it.

Who is counted (an IP, an address, a seat) is stored as a keyed hash only.
"""

from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache
from typing import Any

from limits import RateLimitItem, parse_many
from limits.storage import Storage
from limits.strategies import FixedWindowRateLimiter
from sqlalchemy import case, delete, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import SQLAlchemyError

from ..clock import Clock
from ..config import Limits
from ..store.db import Database, is_sqlite
from ..store.models import RateLimit
from .env import Env
from .errors import RateLimited


class TooMany(RateLimited):
    """A refused request, with how long until the window that refused it ends."""

    def __init__(self, message: Any, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


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
            return session.execute(delete(RateLimit)).rowcount  # type: ignore[attr-defined,no-any-return]

    def clear(self, key: str) -> None:
        with self.db.write() as session:
            session.execute(delete(RateLimit).where(RateLimit.key == key))


@lru_cache(maxsize=64)
def _items(spec: str) -> tuple[RateLimitItem, ...]:
    if spec.strip().lower() in ("", "none"):
        return ()
    return tuple(parse_many(spec))


def _who(env: Env, who: str) -> str:
    """A keyed hash: the table never holds an address or an IP, and cannot be guessed from."""
    return hmac.new(env.config.secret_key.encode(), who.encode(), hashlib.sha256).hexdigest()[:32]


def limiter(env: Env) -> FixedWindowRateLimiter:
    return FixedWindowRateLimiter(SqlStorage(env.db, env.clock))


def hit(env: Env, name: str, who: str | None) -> int:
    """Count one request of ``who`` against limit ``name`` (a field of ``config.Limits``).

    Returns 0 when it is within every window of the limit, else the seconds
    until the window that refused it ends. Nobody to count (no IP, as from the
    CLI) is always within.
    """
    items = _items(getattr(env.config.limits, name))
    if not who or not items:
        return 0
    strategy, key = limiter(env), _who(env, who)
    refused = [item for item in items if not strategy.hit(item, name, key)]
    if not refused:
        return 0
    now = env.clock.now().timestamp()
    ends = max(strategy.get_window_stats(item, name, key).reset_time for item in refused)
    return max(1, int(ends - now + 0.999))


def allowed(env: Env, name: str, who: str | None) -> bool:
    """Count a request; False when over the limit (for limits the caller keeps quiet about)."""
    return hit(env, name, who) == 0


def enforce(env: Env, name: str, who: str | None, message: Any) -> None:
    """Count a request; over the limit, refuse it with ``message`` (a 429 page)."""
    wait = hit(env, name, who)
    if wait:
        raise TooMany(message, wait)


def purge(env: Env) -> int:
    """Delete the windows that have ended (the scheduler runs this hourly)."""
    with env.db.write() as session:
        done = session.execute(
            delete(RateLimit).where(RateLimit.expires_at <= env.clock.now().timestamp())
        )
        return int(done.rowcount)  # type: ignore[attr-defined]


def forget_all(env: Env) -> None:
    """Every window, gone (``pbem`` operators after a flood; tests between tests)."""
    SqlStorage(env.db, env.clock).reset()


__all__ = ["Limits", "TooMany", "allowed", "enforce", "forget_all", "hit", "purge"]
