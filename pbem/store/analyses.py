"""The analyses recorder: which finished games wait for their analysis, how far each has
got, and its judged moves.

Two workers (a second scheduler, or ``pbem analyse`` beside the job) may take on the same
game at once. Nothing is locked: the loser's statement fails on a key instead, like the
move log's ``UNIQUE(game_id, n)``. Starting a game collides on ``analyses``' primary
key; storing a slice on ``UNIQUE(game_id, n)`` of ``analysis_moves`` or on the progress
it expected. Each becomes ``AnalysisRace``, so a use case never reads a driver's error.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import case, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..engine import Status
from .db import rowcount
from .models import Analysis, AnalysisMove, Game

RUNNING = "running"
DONE = "done"

#: The columns of a judged move, in ``AnalysisMove``'s order.
MOVE_COLUMNS = ("n", "seat", "before", "after", "best", "drop", "label")


class AnalysisRace(Exception):
    """Another worker started this game's analysis, or stored this slice, first."""


@contextmanager
def racing() -> Iterator[None]:
    """Turn the collision of a racing worker into ``AnalysisRace`` whenever it comes: on
    PostgreSQL the key's refusal may come only with the COMMIT, so a use case runs its
    whole transaction inside this (as a move's runs inside ``move_log.appending``)."""
    try:
        yield
    except IntegrityError:
        raise AnalysisRace() from None


def waiting(session: Session, limit: int, version: int) -> list[int]:
    """Finished games, not flagged, whose analysis is missing, unfinished or made by a
    method older than ``version``: the stale ones last, each kind oldest first."""
    stale = Analysis.version < version
    query = (
        select(Game.id)
        .outerjoin(Analysis, Analysis.game_id == Game.id)
        .where(
            Game.status == Status.FINISHED.value,
            Game.integrity_error.is_(None),
            (Analysis.game_id.is_(None)) | (Analysis.status != DONE) | stale,
        )
        .order_by(case((stale, 1), else_=0), Game.finished_at, Game.id)
        .limit(limit)
    )
    return list(session.scalars(query))


def finished_ids(session: Session) -> list[int]:
    """Every finished game (``pbem analyse --all``)."""
    query = select(Game.id).where(Game.status == Status.FINISHED.value).order_by(Game.id)
    return list(session.scalars(query))


def of_game(session: Session, game_id: int) -> Analysis | None:
    return session.get(Analysis, game_id)


def _begun(total: int, version: int, now: datetime) -> dict[str, Any]:
    """The columns of an analysis begun at move 0."""
    return dict(
        status=RUNNING, progress=0, total=total, version=version, started_at=now, finished_at=None
    )


def start(session: Session, game_id: int, total: int, version: int, now: datetime) -> None:
    """Begin a game's analysis at move 0 (``AnalysisRace`` if another worker did)."""
    with racing():
        session.execute(insert(Analysis), dict(game_id=game_id, **_begun(total, version, now)))
        session.flush()


def restart(
    session: Session, game_id: int, old: int, total: int, version: int, now: datetime
) -> None:
    """Begin again at move 0 an analysis made by the older method ``old``, its verdicts
    dropped (``AnalysisRace`` if another worker restarted it first)."""
    with racing():
        done = session.execute(
            update(Analysis)
            .where(Analysis.game_id == game_id, Analysis.version == old)
            .values(**_begun(total, version, now))
        )
        if rowcount(done) != 1:
            raise AnalysisRace()
        session.execute(delete(AnalysisMove).where(AnalysisMove.game_id == game_id))
        session.flush()


def store(
    session: Session,
    game_id: int,
    moves: Sequence[dict[str, Any]],
    expected: int,
    now: datetime,
) -> None:
    """Add the judged ``moves`` after the first ``expected`` and move the progress on; the
    analysis is done when the progress reaches its total. ``AnalysisRace`` if another
    worker stored them first (then nothing of this call is kept: the caller's transaction
    rolls back)."""
    progress = expected + len(moves)
    with racing():
        if moves:
            session.execute(insert(AnalysisMove), [dict(game_id=game_id, **m) for m in moves])
        done = session.execute(
            update(Analysis)
            .where(Analysis.game_id == game_id, Analysis.progress == expected)
            .values(progress=progress)
        )
        if rowcount(done) != 1:
            raise AnalysisRace()
        session.execute(
            update(Analysis)
            .where(Analysis.game_id == game_id, Analysis.total <= progress)
            .values(status=DONE, finished_at=now)
        )
        session.flush()


def judged(session: Session, game_id: int) -> list[AnalysisMove]:
    """The game's judged moves, in log order."""
    query = select(AnalysisMove).where(AnalysisMove.game_id == game_id).order_by(AnalysisMove.n)
    return list(session.scalars(query))


def forget(session: Session, game_id: int) -> None:
    """Drop a game's analysis, to compute it again (it is never the truth of anything)."""
    session.execute(delete(AnalysisMove).where(AnalysisMove.game_id == game_id))
    session.execute(delete(Analysis).where(Analysis.game_id == game_id))
