"""What is kept of a client: the one reduction of an IP address and a user agent.

A dispute needs to tell "the same network and browser or not", never who or where a
person is. So the other seat's uses of a link, the public evidence, every row older
than the retention period and every row of an erased player keep the same thing: the
network (``203.0.x.x``, an IPv6 ``/48`` as ``2001:db8:1:…``) and the browser family
(``Firefox``, ``Mobile Safari``; a move mailed in is ``email``). Addresses in a row's
detail are taken out. The access log's triggers let exactly this through, once a row
(migration 0015).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from sqlalchemy.orm import Session
from ua_parser import parse_user_agent

from ...store import access_log
from ...store.models import AccessLog

#: An email address inside free text (a sign-in request's detail, "email from …").
ADDRESS = re.compile(r"[^\s<>()\[\]\"',;:@]+@[^\s<>()\[\]\"',;:@]+")
#: What an address in a reduced detail becomes.
ADDRESS_GONE = "[address]"
#: The user agent of a move mailed in (``services/play/replies.py``): the sender's address.
MAILED = "email from "


def mask_ip(ip: str | None) -> str | None:
    """``203.0.113.7`` → ``203.0.x.x``; ``2001:db8:1:2::7`` → ``2001:db8:1:…``; anything that
    is not an address → None: enough to tell networks apart, not to find a person."""
    if not ip:
        return None
    try:
        address = ipaddress.ip_address(ip.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv4Address):
        return ".".join([*str(address).split(".")[:2], "x", "x"])
    if address.ipv4_mapped is not None:
        return mask_ip(str(address.ipv4_mapped))
    hextets = address.exploded.split(":")[:3]
    return ":".join(f"{int(h, 16):x}" for h in hextets) + ":…"


@lru_cache(maxsize=1024)
def browser_family(user_agent: str | None) -> str | None:
    """The browser's family (``Firefox``), ``email`` for a move mailed in, ``other`` for
    anything no parser knows; None for none."""
    if not user_agent:
        return None
    if user_agent.startswith(MAILED):
        return "email"
    parsed = parse_user_agent(user_agent)
    if parsed is None or parsed.family == "Other":
        return "other"
    return parsed.family[:64]


def without_addresses(text: str | None) -> str | None:
    """The text with every email address in it replaced by ``[address]``."""
    if text is None:
        return None
    return ADDRESS.sub(ADDRESS_GONE, text)


@dataclass(frozen=True, slots=True)
class Reduced:
    """A row's client fields as kept: masked network, browser family, no address."""

    ip: str | None
    user_agent: str | None
    detail: str | None


def reduce(ip: str | None, user_agent: str | None, detail: str | None) -> Reduced:
    """The one reduction, of a row not reduced before (``reduced_at`` says which are)."""
    return Reduced(mask_ip(ip), browser_family(user_agent), without_addresses(detail))


def reduce_rows(session: Session, rows: list[AccessLog], now: datetime) -> int:
    """Reduce these rows of the access log (retention, erasure). Returns how many."""
    kept = []
    for row in rows:
        r = reduce(row.ip, row.user_agent, row.detail)
        kept.append(dict(row_id=row.id, ip=r.ip, user_agent=r.user_agent, detail=r.detail))
    return access_log.reduce_rows(session, kept, now)
