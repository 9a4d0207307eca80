"""The access log's recorder: one row per use of a seat link, and the rows an audit reads.

Append-only like the move log (migration 0010), but for one reduction of a row's client
fields (0015, ``services/core/privacy.py``). The insert is built once and has no
RETURNING, so on PostgreSQL it is pipelined with the request's other statements.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, and_, bindparam, func, insert, or_, select, update
from sqlalchemy.orm import Session

from .models import AccessLog

#: Prebuilt, so each request only binds parameters to a statement compiled once.
INSERT = insert(cast(Table, AccessLog.__table__)).inline()


def append(
    session: Session,
    *,
    game_id: int | None,
    seat: int | None,
    at: datetime,
    action: str,
    player_id: int | None = None,
    seen_n: int | None = None,
    key_version: int | None = None,
    ip: str | None = None,
    user_agent: str | None = None,
    detail: str | None = None,
) -> None:
    """Log one use of a key, or of an account (``player_id``, no game): a plain INSERT,
    one per request, no ORM bookkeeping; the one way a line is written.

    Sent on the session's connection: the session's own ``execute`` only adds its
    ORM dispatch, which a Core INSERT does not use.
    """
    session.connection().execute(
        INSERT,
        dict(
            game_id=game_id,
            player_id=player_id,
            seat=seat,
            at=at,
            action=action,
            seen_n=seen_n,
            key_version=key_version,
            ip=ip,
            user_agent=user_agent,
            detail=detail,
        ),
    )


def around(
    session: Session,
    game_id: int,
    seats: tuple[int, ...],
    since: datetime,
    until: datetime,
    limit: int = 200,
) -> list[AccessLog]:
    """The seats' uses of their keys between two times, oldest first (an audit's evidence)."""
    return list(
        session.scalars(
            select(AccessLog)
            .where(
                AccessLog.game_id == game_id,
                AccessLog.seat.in_(seats),
                AccessLog.at >= since,
                AccessLog.at <= until,
            )
            .order_by(AccessLog.at, AccessLog.id)
            .limit(limit)
        )
    )


def unreduced_before(session: Session, cutoff: datetime, limit: int) -> list[AccessLog]:
    """Up to ``limit`` rows older than ``cutoff`` whose client fields are still whole."""
    return list(
        session.scalars(
            select(AccessLog)
            .where(AccessLog.reduced_at.is_(None), AccessLog.at < cutoff)
            .order_by(AccessLog.reduced_at, AccessLog.at, AccessLog.id)
            .limit(limit)
        )
    )


def unreduced_of(
    session: Session, player_id: int, seats: list[tuple[int, int]], addresses: list[str]
) -> list[AccessLog]:
    """The rows not reduced yet that are a person's: their account's, their seats', and the
    account events that name one of their addresses (a sign-in asked for, a change to it)."""
    mine = [AccessLog.player_id == player_id]
    for n in sorted({n for _, n in seats}):
        mine.append(
            and_(AccessLog.seat == n, AccessLog.game_id.in_([g for g, m in seats if m == n]))
        )
    if addresses:
        mine.append(and_(AccessLog.game_id.is_(None), func.lower(AccessLog.detail).in_(addresses)))
    return list(
        session.scalars(
            select(AccessLog)
            .where(AccessLog.reduced_at.is_(None), or_(*mine))
            .order_by(AccessLog.id)
        )
    )


#: One row's reduction: compiled once, sent for a batch of rows as one executemany.
_REDUCE = (
    update(cast(Table, AccessLog.__table__))
    .where(AccessLog.id == bindparam("row_id"), AccessLog.reduced_at.is_(None))
    .values(
        ip=bindparam("new_ip"),
        user_agent=bindparam("new_user_agent"),
        detail=bindparam("new_detail"),
        reduced_at=bindparam("now"),
    )
)


def reduce_rows(session: Session, reduced: list[dict[str, Any]], now: datetime) -> int:
    """Keep only the reduced client fields of these rows (``row_id``, ``ip``, ``user_agent``,
    ``detail`` each), once a row: the triggers refuse a second reduction. Returns how many."""
    if not reduced:
        return 0
    result = session.connection().execute(
        _REDUCE,
        [
            dict(
                row_id=r["row_id"],
                new_ip=r["ip"],
                new_user_agent=r["user_agent"],
                new_detail=r["detail"],
                now=now,
            )
            for r in reduced
        ],
    )
    return result.rowcount if result.rowcount is not None and result.rowcount >= 0 else len(reduced)


#: The actions that showed a seat its position: its page (and a page answering a form).
SHOWN = ("view",)


def shown(session: Session, game_id: int, seat: int, n: int, since: datetime) -> bool:
    """Whether the seat's page, opened through its link, showed the log at move ``n`` or
    later, at or after ``since`` (the time of move ``n``: it bounds the rows read)."""
    found = session.scalar(
        select(AccessLog.id)
        .where(
            AccessLog.game_id == game_id,
            AccessLog.at >= since,
            AccessLog.seat == seat,
            AccessLog.action.in_(SHOWN),
            AccessLog.seen_n >= n,
        )
        .limit(1)
    )
    return found is not None
