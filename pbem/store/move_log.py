"""The move log's recorder: append a move at ``n``, read a game's moves from ``n``.

Like the eventsourcing library's recorders: the log is keyed by
``UNIQUE(game_id, n)``, and an insert that loses a race fails on that key (or on
SQLite's append-only trigger, migration 0010), which this module turns into
``MovedOn`` so a use case never reads a driver's error or its text. The statements
are built and compiled once; a use case only binds parameters.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, NamedTuple, cast

from sqlalchemy import Row, Table, bindparam, func, insert, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from .models import Game, MoveRow


class MovedOn(Exception):
    """Another move took this ``n`` first: the game has moved on."""


LOG_COLUMNS = (
    MoveRow.n,
    MoveRow.seat,
    MoveRow.move,
    MoveRow.at,
    MoveRow.hash,
    MoveRow.source,
    MoveRow.message,
    MoveRow.program,
)


class LogRow(NamedTuple):
    """The columns of a logged move that pages and the replay need (``LOG_COLUMNS``)."""

    n: int
    seat: int
    move: str
    at: datetime
    hash: str
    source: str
    message: str | None
    program: str | None = None  # the computer's moves: the program that chose it


#: No RETURNING: on PostgreSQL the INSERT is pipelined and its answer comes with the COMMIT.
INSERT = insert(cast(Table, MoveRow.__table__)).inline()
_FROM = (
    select(*LOG_COLUMNS)
    .where(MoveRow.game_id == bindparam("game_id"), MoveRow.n >= bindparam("n"))
    .order_by(MoveRow.n)
)
_ALL = select(MoveRow).where(MoveRow.game_id == bindparam("game_id")).order_by(MoveRow.n)
_SQLITE_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
_LENGTH = select(
    Game.seed, select(func.max(MoveRow.n)).where(MoveRow.game_id == Game.id).scalar_subquery()
).where(Game.public_id == bindparam("public_id"))


def append(session: Session, game_id: int, row: LogRow, position: str) -> None:
    """Insert ``row`` as move ``row.n`` of the game (``MovedOn`` if that ``n`` is taken).

    On PostgreSQL the refusal may only come with the COMMIT: run the transaction
    inside ``appending()`` so it becomes ``MovedOn`` there as well.
    """
    with appending():
        session.connection().execute(  # a Core INSERT: no ORM dispatch (access_log)
            INSERT, dict(game_id=game_id, position=position, **row._asdict())
        )


def read_from(session: Session, game_id: int, n: int) -> list[Row[Any]]:
    """The game's moves numbered ``n`` and on, in order, with the fields of ``LogRow``.

    The driver's rows as they come (no copy into ``LogRow``): a seat page reads them.
    """
    return list(session.execute(_FROM, {"game_id": game_id, "n": n}))


def length(session: Session, public_id: str) -> tuple[int, bool] | None:
    """How many moves the game's log holds (the end of its ``(game_id, n)`` key), and
    whether its cards are dealt (a seed is set: ``Game.dealt``); None for no such game."""
    found = session.execute(_LENGTH, {"public_id": public_id}).one_or_none()
    return None if found is None else (int(found[1] or 0), bool(found[0]))


def rows(session: Session, game_id: int) -> list[MoveRow]:
    """The game's whole log as ORM rows, in order (records, audits and replays need all columns)."""
    return list(session.scalars(_ALL, {"game_id": game_id}))


def _busy(error: OperationalError) -> bool:
    """SQLite's writer lock held past the busy timeout, read from the error code, not its text."""
    code = getattr(error.orig, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in _SQLITE_BUSY


@contextmanager
def appending() -> Iterator[None]:
    """Turn the refusal of a second move at the same ``n`` into ``MovedOn``, whenever it comes.

    The unique key refuses it (an ``IntegrityError``, on PostgreSQL with the COMMIT),
    or, on SQLite, the racing writer held the database past the busy timeout: either
    way another move got there first. Only a move's transaction runs in here, so any
    integrity error in it is the log's key (as it always was).
    """
    try:
        yield
    except IntegrityError as error:
        raise MovedOn() from error
    except OperationalError as error:
        if _busy(error):
            raise MovedOn() from error
        raise


__all__ = [
    "LOG_COLUMNS",
    "LogRow",
    "MovedOn",
    "append",
    "appending",
    "length",
    "read_from",
    "rows",
]


def after_id(session: Session, game_ids: list[int], after: int, limit: int) -> list[MoveRow]:
    """The moves of these games logged after the row id ``after``, oldest first (a bot's
    stream, docs/bots.md): the log's primary key only grows."""
    query = (
        select(MoveRow)
        .where(MoveRow.game_id.in_(game_ids), MoveRow.id > after)
        .order_by(MoveRow.id)
        .limit(limit)
    )
    return list(session.scalars(query))


def newest_id(session: Session, game_ids: list[int]) -> int:
    """The newest row id of these games' moves (0: none yet)."""
    found = session.scalar(select(func.max(MoveRow.id)).where(MoveRow.game_id.in_(game_ids)))
    return int(found or 0)
