"""The scheduler's jobs, plain functions of the injected clock (docs/architecture.md, invariant 8).

Each is idempotent: a reminder, warning or digest carries a unique dedupe key in
the outbox, and a timeout is a log entry whose number is UNIQUE, so running a
job twice (or on two nodes at once) sends and records nothing twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from ...clock import as_utc
from ...i18n import Reader
from ...mail.delivery import Backend, deliver_due
from ...store import access_log
from ...store import games as game_rows
from ...store import outbox as outbox_rows
from ...store import seats as seat_rows
from ...store.models import Game
from ..core.env import Env
from ..core.errors import Frozen
from ..core.lookup import log_rows, state_of
from ..core.replayed import owed_entry, turn_after
from ..core.status import GameStatus
from ..mailing import address_mails, bounces, queued_mails
from ..mailing.seat_mail import seat_link
from ..mailing.writer import Writer
from ..play.deadlines import Interval, after_running, reminder_due, turn_clock
from ..play.moves import record_timeout
from ..play.turns import away_intervals, current_clock, turn_started


@dataclass
class ClockReport:
    reminders: int = 0
    warnings: int = 0
    timeouts: int = 0

    def __bool__(self) -> bool:
        """Whether the run did anything (the scheduler logs only such runs at INFO)."""
        return bool(self.reminders or self.warnings or self.timeouts)


def run_clock(env: Env) -> ClockReport:
    """Reminders, deadline warnings and timeouts for every running game (a frozen one,
    whose log does not verify, has no clock)."""
    report = ClockReport()
    with env.db.read() as session:
        ids = game_rows.running_ids(session)
    for game_id in ids:
        _game_clock(env, game_id, report)
    return report


def _game_clock(env: Env, game_id: int, report: ClockReport) -> None:
    now = env.clock.now()
    with env.db.write() as session:
        game = session.get(Game, game_id)
        if game is None or game.status != GameStatus.IN_PROGRESS:
            return
        rows = log_rows(session, game)
        try:
            match = state_of(env, game, rows)
        except Frozen:
            return  # its log stopped verifying: flagged as this transaction commits
        if match.to_move is None:
            return
        seat = match.to_move
        next_n = len(rows) + 1
        logged = [row.move for row in rows]
        turn = queued_mails.Turn(owed=owed_entry(logged), shown=turn_after(logged))
        away = away_intervals(game.seats[seat])
        clock = turn_clock(turn_started(game, rows), now, game.days_per_move, away)
        timed_out = clock.deadline is not None and now >= clock.deadline
        if clock.away:
            return
        # an erased player's seat is mailed nothing (its clock still runs out); nor is one
        # whose mail bounces: held, reminders would all come late at once when it is fixed
        to_seat = game.seats[seat]
        mailable = not outbox_rows.undeliverable(to_seat.email) and not to_seat.bouncing  # type: ignore[attr-defined]
        if (
            mailable
            and not timed_out
            and clock.deadline is not None
            and clock.warning_at is not None
            and clock.warning_at <= now
        ):
            report.warnings += queued_mails.deadline_warning(
                session, env, game, seat, turn, clock.deadline
            )
        # after the deadline the timeout mail says it all, unless the game simply waits
        keep_reminding = not timed_out or game.timeout_action == "wait"
        if mailable and keep_reminding and game.seats[seat].mail_mode == "each":
            every = timedelta(hours=game.reminder_every_hours)
            k = reminder_due(clock, now, timedelta(hours=game.reminder_after_hours), every, away)
            if k and _reminded_lately(session, game.id, seat, now, every, away):
                k = 0
            if k:
                report.reminders += queued_mails.reminder(
                    session,
                    env,
                    game,
                    seat,
                    turn,
                    k,
                    match,
                    clock.deadline,
                    clock.started,
                )
    # the timeout goes through the log's one path, in a transaction of its own
    if timed_out and match.overdue is None and record_timeout(env, game_id, next_n) is not None:
        report.timeouts += 1


def _reminded_lately(
    session: Session,
    game_id: int,
    seat: int,
    now: datetime,
    every: timedelta,
    away: Sequence[Interval],
) -> bool:
    """Whether the seat's last reminder is less than ``every`` (a day at least) old: after
    downtime the schedule owes one at once, and the next counts from the one sent."""
    last = outbox_rows.last_queued(session, game_id, seat, "reminder")
    return last is not None and now < after_running(as_utc(last), every, away)


def deliver_mail(env: Env, backend: Backend, limit: int = 50) -> int:
    """Send the outbox's due mails, writing those queued unwritten and dropping a "your
    turn" whose move the seat's page showed; each with its own return path, and one the
    relay refuses for good bounced (``mailing/bounces.py``); returns how many went."""
    writer = Writer(env)
    return deliver_due(
        env.db,
        env.clock,
        backend,
        env.config.mail_from,
        limit,
        write=writer.write,
        recover_after=timedelta(seconds=env.config.mail_recover_after),
        unwanted=writer.unwanted,
        return_path=bounces.return_path(env),
        bounced=bounces.bounced(env),
    )


def send_digests(env: Env) -> int:
    """Once a day, after the digest hour: one mail per address listing the games it must move in."""
    now = env.clock.now()
    if now.hour < env.config.digest_hour:
        return 0
    day = now.date().isoformat()
    waiting: dict[str, dict[str, Any]] = {}
    with env.db.read() as session:
        seats = seat_rows.digest_readers(session)
        for seat in seats:
            if outbox_rows.undeliverable(seat.email):
                continue  # an erased player's seat is mailed nothing
            game = seat.game
            rows = log_rows(session, game)
            try:
                match = state_of(env, game, rows)
            except Frozen:
                continue  # flagged as this transaction commits; a frozen game waits for no one
            if match.to_move != seat.seat:
                continue
            # a game whose page showed the seat this turn is not news to it
            if access_log.shown(session, game.id, seat.seat, len(rows), turn_started(game, rows)):
                continue
            clock = current_clock(game, rows, match, now)
            person = waiting.setdefault(
                seat.email.casefold(),
                {
                    "email": seat.email,
                    "name": seat.name,
                    "entries": [],
                    # the digest is in the language of the first waiting seat of the address
                    "reader": Reader(seat.language, seat.timezone),
                },
            )
            person["entries"].append(
                {
                    "opponent": game.seats[1 - seat.seat].name,
                    "turn": turn_after([row.move for row in rows]),
                    "last": rows[-1].move if rows else None,
                    "deadline": clock.deadline if clock else None,
                    "link": seat_link(env, game, seat.seat),
                }
            )
    sent = 0
    for person in waiting.values():
        with env.db.write() as session:
            sent += address_mails.digest(
                session,
                env,
                person["email"],
                person["name"],
                person["entries"],
                day,
                person["reader"],
            )
    return sent
