"""The access log's recorder: one row per use of a seat link, and the rows an audit reads.

Append-only like the move log (migration 0010). The insert is built once and has no
RETURNING, so on PostgreSQL it is pipelined with the request's other statements.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from .models import AccessLog

#: Prebuilt, so each request only binds parameters to a statement compiled once.
INSERT = insert(AccessLog.__table__).inline()


def append(
    session: Session,
    *,
    game_id: int | None,
    seat: int | None,
    at: datetime,
    action: str,
    seen_n: int | None = None,
    key_version: int | None = None,
    ip: str | None = None,
    user_agent: str | None = None,
    detail: str | None = None,
) -> None:
    """Log one use of a key (a plain INSERT: one per request, no ORM bookkeeping).

    Sent on the session's connection: the session's own ``execute`` only adds its
    ORM dispatch, which a Core INSERT does not use.
    """
    session.connection().execute(
        INSERT,
        dict(
            game_id=game_id,
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
