"""The games recorder: a game's row by its public id or id, with its seats and its log's tail;
a new game's row, at most one rematch of a game.

Every request opens a game here. The statements are built once with ``bindparam``s,
so a request only binds an id (building a statement with its loader options, and its
cache key, costs more than the ORM's loading of the row).
"""

from __future__ import annotations

from typing import Any, TypeAlias

from sqlalchemy import Row, Select, bindparam, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, joinedload

from ..engine import Status
from .models import Game, MoveRow, Seat

# The number and chain hash of a game's last logged move, read with the game's row,
# so a cached replay is confirmed current without a query of its own (played.py).
_LAST = (
    select(MoveRow.n, MoveRow.hash)
    .where(MoveRow.game_id == Game.id)
    .order_by(MoveRow.n.desc())
    .limit(1)
    .correlate(Game)
)
TAIL = (
    _LAST.with_only_columns(MoveRow.n).scalar_subquery(),
    _LAST.with_only_columns(MoveRow.hash).scalar_subquery(),
)


def _open_query(lock: bool, vacations: bool) -> Select[Any]:
    # Its two seats and the tail of its log come in the game's own query, and only
    # the game's row is locked (its lock orders the moves: invariant 3).
    seats = joinedload(Game.seats, innerjoin=True)
    query = (
        select(Game, *TAIL)
        .where(Game.public_id == bindparam("public_id"))
        # the seat page's: the vacations, and whether mail to either seat bounces
        .options(
            *(
                (seats.joinedload(Seat.vacations), seats.undefer(Seat.bouncing))  # type: ignore[attr-defined]
                if vacations
                else (seats,)
            )
        )
    )
    return query.with_for_update(of=Game) if lock else query


#: A game with its last move's n and hash (None, None before the first move). A string:
#: ``Row`` takes its column types unpacked since SQLAlchemy 2.1, as one tuple before it.
Opened: TypeAlias = "Row[Game, int | None, str | None]"

_OPEN = {(lock, vac): _open_query(lock, vac) for lock in (False, True) for vac in (False, True)}
_BY_ID = (
    select(Game, *TAIL)
    .where(Game.id == bindparam("game_id"))
    .options(joinedload(Game.seats, innerjoin=True))
)
_BY_PUBLIC_ID = select(Game).where(Game.public_id == bindparam("public_id"))
_BY_PUBLIC_ID_LOCKED = _BY_PUBLIC_ID.with_for_update()


def with_tail(
    session: Session, public_id: str, *, lock: bool = False, vacations: bool = False
) -> Opened | None:
    """The game, its seats (``vacations``: and theirs) and its last move's n and hash.

    ``lock``: lock the game's row (only it) for the rest of the transaction.
    """
    return session.execute(_OPEN[lock, vacations], {"public_id": public_id}).unique().one_or_none()


def with_tail_by_id(session: Session, game_id: int) -> Opened | None:
    """The game by its id, with its seats and its last move's n and hash (the mail sender's)."""
    return session.execute(_BY_ID, {"game_id": game_id}).unique().one_or_none()


def by_public_id(session: Session, public_id: str, *, lock: bool = False) -> Game | None:
    """The game's row alone (``lock``: locked for the rest of the transaction)."""
    query = _BY_PUBLIC_ID_LOCKED if lock else _BY_PUBLIC_ID
    return session.scalars(query, {"public_id": public_id}).one_or_none()


class RematchMade(Exception):
    """The finished game has its rematch already: another one took ``rematch_of`` first."""


def add(session: Session, game: Game) -> None:
    """Insert a new game's row and give it its id.

    A rematch (``rematch_of`` set) meets the column's unique key here, not at a COMMIT
    outside this recorder: ``RematchMade`` if the other player's rematch got there first.
    """
    rematch = game.rematch_of
    session.add(game)
    try:
        session.flush()
    except IntegrityError as error:
        if rematch is None:
            raise
        raise RematchMade() from error


def flag(session: Session, game_id: int, error: str) -> None:
    """Mark a game whose log no longer verifies, unless it is flagged already."""
    session.execute(
        update(Game)
        .where(Game.id == game_id, Game.integrity_error.is_(None))
        .values(integrity_error=error)
    )


def rematch_of(session: Session, game_id: int) -> Game | None:
    """The rematch already made of a game, if any (there is at most one: a unique key)."""
    return session.scalars(select(Game).where(Game.rematch_of == game_id)).one_or_none()


def running_ids(session: Session) -> list[int]:
    """The ids of the games in progress whose log verifies: the ones with a clock."""
    return list(
        session.scalars(
            select(Game.id).where(
                Game.status == Status.IN_PROGRESS.value, Game.integrity_error.is_(None)
            )
        )
    )


def newest(session: Session, limit: int) -> list[Game]:
    """The latest games first."""
    return list(session.scalars(select(Game).order_by(Game.id.desc()).limit(limit)))


def move_counts(session: Session) -> dict[int, int]:
    """How many moves each game has logged (games without a move are absent)."""
    counted = session.execute(select(MoveRow.game_id, func.count()).group_by(MoveRow.game_id))
    return {game_id: n for game_id, n in counted}


def first_by_public_id(session: Session, public_id: str) -> Game | None:
    """The game with this public id, or None (a reply address may name a game since gone)."""
    return session.scalars(_BY_PUBLIC_ID, {"public_id": public_id}).first()
