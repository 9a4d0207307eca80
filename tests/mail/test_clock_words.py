"""What the clock's mails and pages say, driven hour by hour over whole days on the
injected clock: the move a mail names, the deadline a vacation moves, the time away
a player asks for."""

from __future__ import annotations

from datetime import timedelta

from pbem.clock import as_utc
from pbem.services.play import game_clock, game_pages
from pbem.services.scheduled import jobs
from tests.helpers import mails
from tests.mail.play import new_game, play
from tests.support import own_database

CLOCK = game_clock.GameClock(days_per_move=3, reminder_after_hours=24, reminder_every_hours=48)


# A database of each test's own: the clock job, run every hour of days, then looks only
# at this test's games and mails.
database_url, database = own_database("function")


def run_days(env, days: float, step_hours: float = 1) -> None:
    """Run the clock job every ``step_hours`` while ``days`` pass."""
    end = env.clock.now() + timedelta(days=days)
    while env.clock.now() < end:
        env.clock.advance(hours=step_hours)
        jobs.run_clock(env)


def test_the_timeout_names_the_move_the_reminder_and_warning_name(env):
    public_id = new_game(env, CLOCK, first=0)
    run_days(env, 4)
    late = mails(env, public_id, seat=0)
    subjects = {m.kind: m.subject for m in late}
    assert {"reminder", "deadline_warning", "timeout"} <= subjects.keys()
    for kind in ("reminder", "deadline_warning", "timeout"):
        assert subjects[kind].endswith(("(1)", " 1)")), (kind, subjects[kind])
    (timeout,) = [m for m in late if m.kind == "timeout"]
    assert "Your time for move 1 has run out." in timeout.text_body
    assert "move 2" not in timeout.text_body + timeout.html_body
    (told,) = mails(env, public_id, seat=1, kind="timeout")
    assert "(move 1)" in told.subject
    assert "Ada's time for move 1 has run out." in told.text_body
    assert "to this mail. Until you do, Ada can still move." in told.text_body


def test_a_later_turn_times_out_under_its_own_number(env):
    public_id = new_game(env, CLOCK, first=0)
    play(env, public_id, 2)
    run_days(env, 4)
    (timeout,) = mails(env, public_id, seat=0, kind="timeout")
    assert "(move 3)" in timeout.subject
    assert "Your time for move 3 has run out." in timeout.text_body


def test_a_waiting_game_keeps_reminding_of_the_same_move_after_the_timeout(env):
    clock = game_clock.GameClock(
        days_per_move=1, timeout_action="wait", reminder_after_hours=12, reminder_every_hours=24
    )
    public_id = new_game(env, clock, first=0)
    run_days(env, 3)
    reminders = mails(env, public_id, seat=0, kind="reminder")
    assert len(reminders) >= 2  # before and after the timeout
    for mail in reminders:
        assert mail.subject.endswith(" (1)")
        assert "waits for your move 1 " in mail.text_body
    (timeout,) = mails(env, public_id, seat=0, kind="timeout")
    assert "Your time for move 1 has run out." in timeout.text_body


def test_a_deadline_moved_by_time_away_is_warned_of_again_once(env):
    from pbem.services.core import access
    from pbem.services.play import seat_settings
    from tests.mail.play import token

    public_id = new_game(env, CLOCK, first=0)
    start = env.clock.now()
    run_days(env, 2.5)  # 60 h: warned at 48 h of the 72 h deadline
    (first,) = mails(env, public_id, seat=0, kind="deadline_warning")
    seat_settings.set_away(env, token(env, public_id, 0), 2, access.Client())
    # back at 108 h with 12 h of running time left, less than the warning's lead: topped up
    # to the lead, so the deadline moves to 132 h and is warned of a whole day before it
    run_days(env, 2)
    warnings = mails(env, public_id, seat=0, kind="deadline_warning")
    assert len(warnings) == 2
    moved = warnings[1]
    assert moved.text_body != first.text_body
    page = game_pages.seat_page(env, token(env, public_id, 0), access.Client())
    assert page.clock.deadline == start + timedelta(hours=132)
    assert as_utc(moved.created_at) == start + timedelta(hours=108)  # as the seat came back
    run_days(env, 1)  # to the timeout: the moved deadline is warned of once
    assert len(mails(env, public_id, seat=0, kind="deadline_warning")) == 2
    assert len(mails(env, public_id, seat=0, kind="timeout")) == 1


def test_time_away_before_the_warning_moves_it_and_warns_once(env):
    from pbem.services.core import access
    from pbem.services.play import seat_settings
    from tests.mail.play import token

    public_id = new_game(env, CLOCK, first=0)
    run_days(env, 1)
    seat_settings.set_away(env, token(env, public_id, 0), 1, access.Client())
    run_days(env, 4)
    assert len(mails(env, public_id, seat=0, kind="deadline_warning")) == 1
    assert len(mails(env, public_id, seat=0, kind="timeout")) == 1
