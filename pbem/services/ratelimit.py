"""Rate limits on what makes the server send mail or store things, shared through the database.

The ``limits`` library does the counting (its fixed-window strategy over limits
written as ``"5 per 10 minutes; 30 per day"``, from ``config.Limits``) in the
``rate_limits`` table (``store.rate_limits``), so every gunicorn worker, and every
machine sharing the database, counts in the same windows.

Who is counted (an IP, an address, a seat) is stored as a keyed hash only.
"""

from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache
from typing import Any

from limits import RateLimitItem, parse_many
from limits.strategies import FixedWindowRateLimiter

from ..config import Limits
from ..store import rate_limits
from ..store.rate_limits import SqlStorage
from .env import Env
from .errors import RateLimited


class TooMany(RateLimited):
    """A refused request, with how long until the window that refused it ends."""

    def __init__(self, message: Any, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


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
        return rate_limits.purge(session, env.clock.now().timestamp())


def forget_all(env: Env) -> None:
    """Every window, gone (``pbem`` operators after a flood; tests between tests)."""
    SqlStorage(env.db, env.clock).reset()


__all__ = ["Limits", "TooMany", "allowed", "enforce", "forget_all", "hit", "purge"]
