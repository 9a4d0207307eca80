"""A stored game's turn and its seats' time away: when the turn began, the clock of the seat
to move, and how much of the allowance of days away is left.

The clock's arithmetic, a pure function of these, is ``deadlines.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from ... import engine as jaipur
from ...clock import as_utc
from ...store.models import Game, MoveRow, Seat
from ..core.replayed import Entry
from .deadlines import TurnClock, turn_clock


def turn_started(game: Game, rows: Sequence[MoveRow | Entry]) -> datetime:
    """When the current turn began: the last entry that was not a timeout, or the creation."""
    for row in reversed(rows):
        if row.move != "timeout":
            return as_utc(row.at)
    return as_utc(game.dealt_at or game.created_at)


def away_intervals(seat: Seat) -> list[tuple[datetime, datetime]]:
    return [(as_utc(v.starts_at), as_utc(v.ends_at)) for v in seat.vacations]


#: The shortest time away stored (the forms' least): less left of an allowance is none.
MIN_AWAY_DAYS = 0.01


def vacation_left(game: Game, seat: Seat) -> float:
    """Days of the allowance neither used nor planned: what a request could add beyond a
    current absence's end."""
    used = sum((as_utc(v.ends_at) - as_utc(v.starts_at)).total_seconds() for v in seat.vacations)
    return max(0.0, game.vacation_days - used / 86400)


def away_reach(game: Game, seat: Seat, now: datetime) -> timedelta:
    """The longest absence that may run from ``now``: the allowance less the time actually
    used by ``now`` (a current absence counts up to ``now``, not to its planned end)."""
    used = sum(
        (
            max(timedelta(0), min(as_utc(v.ends_at), now) - as_utc(v.starts_at))
            for v in seat.vacations
        ),
        timedelta(0),
    )
    return max(timedelta(0), timedelta(days=game.vacation_days) - used)


def current_clock(
    game: Game, rows: Sequence[MoveRow | Entry], match: jaipur.Match, now: datetime
) -> TurnClock | None:
    """The turn clock of the seat to move (None once the game is over)."""
    if match.to_move is None:
        return None
    return turn_clock(
        turn_started(game, rows), now, game.days_per_move, away_intervals(game.seats[match.to_move])
    )
