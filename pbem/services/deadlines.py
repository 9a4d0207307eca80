"""The correspondence clock: when a turn's time runs out, when to remind, who is away.

A seat's clock runs only while it is not away: a vacation moves its deadline
and its reminders back by the time it overlaps the turn. Everything here is
a pure function of the turn's start, the game's settings and the vacations,
so the scheduler's jobs can be idempotent and tested on a frozen clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..clock import as_utc

Interval = tuple[datetime, datetime]


def after_running(start: datetime, running: timedelta, away: Sequence[Interval]) -> datetime:
    """The moment at which ``running`` time has passed since ``start``, not counting ``away``."""
    cursor, remaining = as_utc(start), running
    for a, b in sorted((as_utc(a), as_utc(b)) for a, b in away):
        if b <= cursor:
            continue
        a = max(a, cursor)
        if cursor + remaining <= a:
            break
        remaining -= a - cursor
        cursor = b
    return cursor + remaining


def is_away(now: datetime, away: Sequence[Interval]) -> bool:
    now = as_utc(now)
    return any(as_utc(a) <= now < as_utc(b) for a, b in away)


@dataclass(frozen=True, slots=True)
class TurnClock:
    """When the current turn's deadline, warning and reminders fall."""

    started: datetime
    deadline: datetime | None
    warning_at: datetime | None
    away: bool

    def left(self, now: datetime) -> timedelta | None:
        return None if self.deadline is None else self.deadline - as_utc(now)


def turn_clock(
    started: datetime,
    now: datetime,
    days_per_move: int | None,
    away: Sequence[Interval],
) -> TurnClock:
    if days_per_move is None:
        return TurnClock(as_utc(started), None, None, is_away(now, away))
    allowed = timedelta(days=days_per_move)
    warn_before = min(timedelta(hours=24), allowed / 2)
    return TurnClock(
        started=as_utc(started),
        deadline=after_running(started, allowed, away),
        warning_at=after_running(started, allowed - warn_before, away),
        away=is_away(now, away),
    )


def reminders_due(
    started: datetime,
    now: datetime,
    first_after: timedelta,
    every: timedelta,
    away: Sequence[Interval],
) -> int:
    """How many reminders are due by ``now``: the first after ``first_after``, then every ``every``.

    Time away does not count.
    """
    if as_utc(now) < after_running(started, first_after, away):
        return 0
    k = 1
    while k < 1000 and after_running(started, first_after + k * every, away) <= as_utc(now):
        k += 1
    return k
