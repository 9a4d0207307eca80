"""The reminders and the deadline warning never arrive together, and the warning comes its
whole lead time before the deadline, after time away too (issue 32, finding 8). Driven hour
by hour on the injected clock."""

from __future__ import annotations

from datetime import timedelta
from itertools import pairwise

import pytest

from pbem.clock import as_utc
from pbem.services.core import access
from pbem.services.play import game_clock, game_pages, seat_settings
from pbem.services.play.deadlines import WARNING_LEAD, warning_lead
from pbem.services.scheduled import jobs
from tests.helpers import mails
from tests.mail.play import new_game, token
from tests.support import own_database

# A database of each test's own: the clock job, run every hour of days, then looks only at
# this test's games.
database_url, database = own_database("function")


def run_hours(env, hours: int) -> None:
    for _ in range(hours):
        env.clock.advance(hours=1)
        jobs.run_clock(env)


def sent_at(env, public_id: str, kind: str) -> list:
    return [as_utc(m.created_at) for m in mails(env, public_id, seat=0, kind=kind)]


def test_the_lead_time_is_a_day_or_half_the_time_per_move():
    assert timedelta(hours=24) == WARNING_LEAD
    assert warning_lead(timedelta(days=3)) == timedelta(hours=24)
    assert warning_lead(timedelta(days=2)) == timedelta(hours=24)
    assert warning_lead(timedelta(days=1)) == timedelta(hours=12)


@pytest.mark.parametrize(
    ("days", "first_after"), [(2, 24), (2, 12), (1, 12), (1, 24), (3, 48), (3, 24)]
)
def test_no_reminder_comes_with_or_after_the_warning(env, days, first_after):
    clock = game_clock.GameClock(
        days_per_move=days,
        reminder_after_hours=first_after,
        reminder_every_hours=48,
        timeout_action="wait",
    )
    public_id = new_game(env, clock, first=0)
    start = env.clock.now()
    run_hours(env, days * 24 + 60)  # past the deadline: the waiting game reminds again
    deadline = start + timedelta(days=days)
    (warning,) = sent_at(env, public_id, "deadline_warning")
    assert deadline - warning == warning_lead(timedelta(days=days))
    reminders = sent_at(env, public_id, "reminder")
    assert warning not in reminders
    assert not [r for r in reminders if warning <= r < deadline]
    expected_first = start + timedelta(hours=first_after)
    if expected_first < warning:
        assert reminders[0] == expected_first
    assert any(r > deadline for r in reminders)  # after the timeout they go on


def test_coming_back_after_the_warning_leaves_the_whole_lead_time_and_is_warned_again(env):
    clock = game_clock.GameClock(days_per_move=1, reminder_after_hours=48, reminder_every_hours=48)
    public_id = new_game(env, clock, first=0)
    start = env.clock.now()
    run_hours(env, 19)  # warned at 12 h: 12 h before the deadline at 24 h
    assert sent_at(env, public_id, "deadline_warning") == [start + timedelta(hours=12)]
    t = token(env, public_id, 0)
    seat_settings.set_away(env, t, 1, access.Client())  # 5 h of running time left
    run_hours(env, 24)  # back at 43 h
    page = game_pages.seat_page(env, t, access.Client())
    assert page.clock.deadline == start + timedelta(hours=43 + 12)  # the whole lead, not 5 h
    warnings = sent_at(env, public_id, "deadline_warning")
    assert warnings == [start + timedelta(hours=12), start + timedelta(hours=43)]
    run_hours(env, 11)
    assert "timeout" not in [e.move for e in game_pages.public_page(env, public_id).entries]
    run_hours(env, 1)
    assert "timeout" in [e.move for e in game_pages.public_page(env, public_id).entries]
    # only once a turn: a second short absence adds no more than it stops
    second = new_game(env, clock, first=0)
    t2 = token(env, second, 0)
    begun = env.clock.now()
    run_hours(env, 20)
    seat_settings.set_away(env, t2, 0.5, access.Client())  # back at 32 h with 12 h left
    run_hours(env, 22)  # at 42 h: 2 h left
    seat_settings.set_away(env, t2, 0.5, access.Client())  # back at 54 h: still 2 h left
    clock_now = game_pages.seat_page(env, t2, access.Client()).clock
    assert clock_now.deadline == begun + timedelta(hours=56)


@pytest.mark.parametrize("timeout_action", ["wait", "claim"])
@pytest.mark.parametrize("down_hours", [50, 59, 83])
def test_after_the_scheduler_was_down_reminders_still_come_a_day_apart(
    env, down_hours, timeout_action
):
    """A scheduler down for days (the clock jumps) sends one catch-up reminder, and the next
    no sooner than a day after it: counted from the reminder sent, not from the schedule."""
    clock = game_clock.GameClock(
        days_per_move=10,
        reminder_after_hours=24,
        reminder_every_hours=24,
        timeout_action=timeout_action,
    )
    public_id = new_game(env, clock, first=0)
    env.clock.advance(hours=down_hours)
    jobs.run_clock(env)
    assert len(sent_at(env, public_id, "reminder")) == 1  # one catch-up, not one per day missed
    run_hours(env, 24 * 4)
    reminders = sent_at(env, public_id, "reminder")
    assert len(reminders) >= 4
    gaps = [b - a for a, b in pairwise(reminders)]
    assert min(gaps) >= timedelta(hours=24), gaps
