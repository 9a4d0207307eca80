"""Rate limits on what makes the server send mail or store things, shared through the database.

The ``limits`` library does the counting (its fixed-window strategy over limits
written as ``"5 per 10 minutes; 30 per day"``, from ``config.Limits``) in the
``rate_limits`` table (``store.rate_limits``), so every gunicorn worker, and every
machine sharing the database, counts in the same windows.

Who is counted (an IP, an address, a seat) is stored as a keyed hash only. A client
is its IPv4 address or its IPv6 /64 (``network``); an address is counted lower-cased
and without a ``+tag`` (``mailbox``). Only requests let through are counted, and each
limit counts what one requester does (a client, a signed-in player, or one of them
asking about one address), so nobody's requests use up the limit of the person an
address or a seat belongs to: they cannot be locked out of signing in, getting their
link or starting a game.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from limits import RateLimitItem, parse_many
from limits.strategies import FixedWindowRateLimiter

from ...config import Limits
from ...store import rate_limits
from ...store.rate_limits import SqlStorage
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


def network(ip: str | None) -> str | None:
    """Who one client is, for counting: an IPv4 address, or the /64 of an IPv6 address.

    A /64 is the smallest block a subscriber gets, and a host may use any address in
    it: counted apart, one machine would be as many clients as it likes.
    """
    if not ip:
        return None
    try:
        address = ipaddress.ip_address(ip.strip())
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # an IPv4 client of a dual-stack socket
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def mailbox(email: str) -> str:
    """An address as counted: lower-cased, with a ``+tag`` dropped (``name+a@`` is ``name@``).

    For counting only: mail goes to the address as it was typed, and an account is
    still its own address.
    """
    local, _, domain = email.strip().rpartition("@")
    untagged = local.split("+", 1)[0]
    return f"{untagged or local}@{domain}".casefold()


@dataclass(frozen=True, slots=True)
class Count:
    """One request of ``who`` against the limit ``name`` (a field of ``config.Limits``);
    nobody to count (``who`` None: no IP, as from the CLI) is always within."""

    name: str
    who: str | None


def _who(env: Env, who: str) -> str:
    """A keyed hash: the table never holds an address or an IP, and cannot be guessed from."""
    return hmac.new(env.config.secret_key.encode(), who.encode(), hashlib.sha256).hexdigest()[:32]


def limiter(env: Env) -> FixedWindowRateLimiter:
    return FixedWindowRateLimiter(SqlStorage(env.db, env.clock))


def wait(env: Env, *counts: Count) -> int:
    """0 when one more request of each count is within every window of its limit, else
    the seconds until the last window that refuses one ends. Counts nothing."""
    strategy, ends = limiter(env), 0.0
    for c in counts:
        if not c.who:
            continue
        key = _who(env, c.who)
        for item in _items(getattr(env.config.limits, c.name)):
            if not strategy.test(item, c.name, key):
                ends = max(ends, strategy.get_window_stats(item, c.name, key).reset_time)
    if not ends:
        return 0
    return max(1, int(ends - env.clock.now().timestamp() + 0.999))


def count(env: Env, *counts: Count) -> None:
    """Count requests that were let through (a refused one is never counted, so
    nobody's refused requests stand in anyone's way once the window allows them)."""
    strategy = limiter(env)
    for c in counts:
        if c.who:
            key = _who(env, c.who)
            for item in _items(getattr(env.config.limits, c.name)):
                strategy.hit(item, c.name, key)


def hit(env: Env, name: str, who: str | None) -> int:
    """Count one request of ``who`` against limit ``name`` if it is within every window.

    Returns 0 when it was (and is counted), else the seconds until the window that
    refused it ends (and it is not counted).
    """
    wanted = Count(name, who)
    refused = wait(env, wanted)
    if not refused:
        count(env, wanted)
    return refused


def allowed(env: Env, name: str, who: str | None) -> bool:
    """Count a request; False when over the limit (for limits the caller keeps quiet about)."""
    return hit(env, name, who) == 0


def check(env: Env, name: str, who: str | None, message: Any) -> Count:
    """Over the limit, refuse with ``message`` (a 429 page); else the count to make once
    the request is done (``count``): what fails or is refused afterwards is not counted."""
    wanted = Count(name, who)
    refused = wait(env, wanted)
    if refused:
        raise TooMany(message, refused)
    return wanted


def enforce(env: Env, name: str, who: str | None, message: Any) -> None:
    """Count a request; over the limit, refuse it with ``message`` (a 429 page)."""
    count(env, check(env, name, who, message))


def purge(env: Env) -> int:
    """Delete the windows that have ended (the scheduler runs this hourly)."""
    with env.db.write() as session:
        return rate_limits.purge(session, env.clock.now().timestamp())


def forget_all(env: Env) -> None:
    """Every window, gone (``pbem`` operators after a flood; tests between tests)."""
    SqlStorage(env.db, env.clock).reset()


__all__ = [
    "Count",
    "Limits",
    "TooMany",
    "allowed",
    "check",
    "count",
    "enforce",
    "forget_all",
    "hit",
    "mailbox",
    "network",
    "purge",
    "wait",
]
