"""The bouncing addresses' recorder: mark one, clear it, ask which of some addresses bounce.

An address is kept casefolded, and compared with the lower-cased address of a seat or an
outbox row, as ``seats.of_player`` does.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ..engine import Status
from .db import rowcount
from .models import Bouncing, Game, Seat


def key(address: str) -> str:
    return address.strip().casefold()


def mark(
    session: Session, address: str, now: datetime, outbox_id: int | None, reason: str
) -> Bouncing:
    """Mark the address as bouncing, or return its mark as it stands (the first bounce's)."""
    found = session.get(Bouncing, key(address))
    if found is not None:
        return found
    row = Bouncing(address=key(address), since=now, outbox_id=outbox_id, reason=reason[:2000])
    session.add(row)
    session.flush()
    return row


def clear(session: Session, addresses: Iterable[str]) -> int:
    """Forget the marks of these addresses (verified again, or left); returns how many."""
    keys = sorted({key(a) for a in addresses})
    if not keys:
        return 0
    done = session.execute(
        delete(Bouncing)
        .where(Bouncing.address.in_(keys))
        .execution_options(synchronize_session=False)
    )
    return rowcount(done)


def bouncing(session: Session, addresses: Iterable[str]) -> set[str]:
    """Which of these addresses bounce (as given, not casefolded)."""
    given = {key(a): a for a in addresses}
    if not given:
        return set()
    found = session.scalars(select(Bouncing.address).where(Bouncing.address.in_(list(given))))
    return {given[k] for k in found}


def running_seats(session: Session, address: str) -> list[Seat]:
    """The seats at this address in games that have not finished (their opponents are told)."""
    return list(
        session.scalars(
            select(Seat)
            .join(Game)
            .where(func.lower(Seat.email) == key(address), Game.status != Status.FINISHED.value)
            .order_by(Seat.game_id, Seat.seat)
        )
    )
