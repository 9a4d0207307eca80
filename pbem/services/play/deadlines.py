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

from ...clock import as_utc

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


#: The deadline warning comes this long before the deadline (``warning_lead``). The clock's
#: numbers are here and only here; README.md ("Each game has a clock") tells them.
WARNING_LEAD = timedelta(hours=24)


def warning_lead(allowed: timedelta) -> timedelta:
    """How long before the deadline the warning comes: a day, or half the time per move in
    a game whose moves have less than two days."""
    return min(WARNING_LEAD, allowed / 2)


def running(start: datetime, end: datetime, away: Sequence[Interval]) -> timedelta:
    """The running time from ``start`` to ``end``: the time not spent away."""
    start, end = as_utc(start), as_utc(end)
    if end <= start:
        return timedelta(0)
    stopped, cursor = timedelta(0), start
    for a, b in sorted((as_utc(a), as_utc(b)) for a, b in away):
        a, b = max(a, cursor), min(b, end)
        if b > a:
            stopped += b - a
            cursor = b
    return end - start - stopped


def top_up(started: datetime, allowed: timedelta, away: Sequence[Interval]) -> timedelta:
    """Running time added to a turn so that a seat coming back from time away has at least
    the warning's lead time left, and is warned that long before its deadline.

    Once a turn: the first absence that began with less than the lead left (the seat had
    been warned) tops it up; later ones stop the clock and add nothing, so short absences
    cannot stretch a turn without end. An absence that began after the deadline adds none.
    """
    lead = warning_lead(allowed)
    for a, b in sorted((as_utc(a), as_utc(b)) for a, b in away):
        if b <= as_utc(started):
            continue
        left = allowed - running(started, max(a, as_utc(started)), away)
        if left <= timedelta(0):
            return timedelta(0)
        if left < lead:
            return lead - left
    return timedelta(0)


def turn_clock(
    started: datetime,
    now: datetime,
    days_per_move: int | None,
    away: Sequence[Interval],
) -> TurnClock:
    if days_per_move is None:
        return TurnClock(as_utc(started), None, None, is_away(now, away))
    allowed = timedelta(days=days_per_move)
    lead = warning_lead(allowed)
    allowed += top_up(started, allowed, away)
    return TurnClock(
        started=as_utc(started),
        deadline=after_running(started, allowed, away),
        warning_at=after_running(started, allowed - lead, away),
        away=is_away(now, away),
    )


def reminder_due(
    clock: TurnClock,
    now: datetime,
    first_after: timedelta,
    every: timedelta,
    away: Sequence[Interval],
) -> int:
    """The number of the reminder due by ``now`` (``reminders_due``), or 0: none is due, or
    the warning is due or stands (from its time to the deadline), which says it all, so a
    reminder and the warning never come together."""
    k = reminders_due(clock.started, now, first_after, every, away)
    if not k or clock.warning_at is None or clock.deadline is None:
        return k
    at = after_running(clock.started, first_after + (k - 1) * every, away)
    now = as_utc(now)
    if clock.warning_at <= now < clock.deadline or clock.warning_at <= at < clock.deadline:
        return 0
    return k


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
