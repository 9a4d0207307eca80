"""The analyses of uploaded record files: asked for, waiting, how far each has got.

One row a file, keyed by its SHA-256: two people asking at once collide on the key (the
second finds it asked). A slice is stored only on the progress it expected, so two
workers on one file never store a move twice (``analyses.AnalysisRace``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import case, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .analyses import DONE, RUNNING, AnalysisRace
from .db import rowcount
from .models import RecordAnalysis


def of_record(session: Session, digest: str) -> RecordAnalysis | None:
    return session.get(RecordAnalysis, digest)


def ask(
    session: Session, digest: str, data: bytes, total: int, version: int, now: datetime
) -> bool:
    """Ask for the analysis of the record file ``data``; False if it was asked already."""
    if session.get(RecordAnalysis, digest) is not None:
        return False
    try:
        with session.begin_nested():
            session.execute(
                insert(RecordAnalysis),
                dict(
                    digest=digest,
                    record=data,
                    status=RUNNING,
                    progress=0,
                    total=total,
                    version=version,
                    verdicts="[]",
                    asked_at=now,
                    finished_at=None,
                ),
            )
    except IntegrityError:  # asked by someone else at the same moment
        return False
    return True


def waiting(session: Session, limit: int, version: int) -> list[str]:
    """Files whose analysis is unfinished or made by a method older than ``version``: the
    stale ones last, each kind asked for first."""
    stale = RecordAnalysis.version < version
    query = (
        select(RecordAnalysis.digest)
        .where((RecordAnalysis.status != DONE) | stale)
        .order_by(case((stale, 1), else_=0), RecordAnalysis.asked_at, RecordAnalysis.digest)
        .limit(limit)
    )
    return list(session.scalars(query))


def verdicts(row: RecordAnalysis) -> list[dict[str, Any]]:
    return list(json.loads(row.verdicts))


def restart(session: Session, digest: str, old: int, version: int) -> None:
    """Begin again, by the method ``version``, an analysis made by the older ``old``."""
    done = session.execute(
        update(RecordAnalysis)
        .where(RecordAnalysis.digest == digest, RecordAnalysis.version == old)
        .values(status=RUNNING, progress=0, version=version, verdicts="[]", finished_at=None)
    )
    if rowcount(done) != 1:
        raise AnalysisRace()


def store(
    session: Session,
    digest: str,
    moves: Sequence[dict[str, Any]],
    expected: int,
    now: datetime,
) -> None:
    """Add the judged ``moves`` after the first ``expected``; done at the total.
    ``AnalysisRace`` if another worker stored them first."""
    row = session.get(RecordAnalysis, digest)
    if row is None or row.progress != expected:
        raise AnalysisRace()
    progress = expected + len(moves)
    text = json.dumps([*verdicts(row), *moves])
    done = progress >= row.total
    changed = session.execute(
        update(RecordAnalysis)
        .where(RecordAnalysis.digest == digest, RecordAnalysis.progress == expected)
        .values(
            progress=progress,
            verdicts=text,
            status=DONE if done else RUNNING,
            finished_at=now if done else None,
        )
        .execution_options(synchronize_session=False)
    )
    if rowcount(changed) != 1:
        raise AnalysisRace()


def any_before(session: Session, before: datetime) -> bool:
    """Whether an analysis was asked for before ``before`` (a read, to spare a write)."""
    query = select(RecordAnalysis.digest).where(RecordAnalysis.asked_at < before).limit(1)
    return session.scalar(query) is not None


def forget_before(session: Session, before: datetime) -> int:
    """Drop the analyses asked for before ``before`` (their uploads are gone by then)."""
    gone = session.execute(delete(RecordAnalysis).where(RecordAnalysis.asked_at < before))
    return rowcount(gone)
