"""Reminders, deadline warnings, vacations and timeouts follow an injected clock, and no job
ever sends (or logs) anything twice when run twice."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.i18n.words import tell
from pbem.services.core import access
from pbem.services.core.errors import MoveRefused, ServiceError
from pbem.services.play import game_clock, game_pages, moves, seat_settings
from pbem.services.play.deadlines import after_running, reminders_due
from pbem.services.scheduled import jobs
from tests.helpers import csrf_of, link_in, mails
from tests.mail.play import new_game, play, to_move, token

CLOCK = game_clock.GameClock(days_per_move=3, reminder_after_hours=24, reminder_every_hours=48)


def kinds(env, public_id, seat=None):
    return [m.kind for m in mails(env, public_id, seat=seat)]


def effects(env, public_id) -> dict[str, int]:
    """This game's reminders, warnings and logged timeouts (other tests' games run too)."""
    sent = kinds(env, public_id)
    timeouts = [e for e in game_pages.public_page(env, public_id).entries if e.move == "timeout"]
    return {
        "reminders": sent.count("reminder"),
        "warnings": sent.count("deadline_warning"),
        "timeouts": len(timeouts),
    }


def run_twice(env, public_id) -> dict[str, int]:
    """Run the clock job twice; the second run must change nothing. Returns what the first did."""
    before = effects(env, public_id)
    jobs.run_clock(env)
    after = effects(env, public_id)
    jobs.run_clock(env)
    assert effects(env, public_id) == after
    return {k: after[k] - before[k] for k in after}


def test_reminders_warning_and_timeout_on_schedule(env):
    public_id = new_game(env, CLOCK, first=0)
    clock = env.clock
    clock.advance(hours=23)
    assert run_twice(env, public_id)["reminders"] == 0
    clock.advance(hours=2)  # 25 h: the first reminder
    assert run_twice(env, public_id)["reminders"] == 1
    assert kinds(env, public_id, 0).count("reminder") == 1
    clock.advance(hours=23)  # 48 h: warning (24 h before the 72 h deadline)
    done = run_twice(env, public_id)
    assert done["warnings"] == 1 and done["reminders"] == 0
    clock.advance(hours=25)  # 73 h: the timeout (and no more reminders: the game can be claimed)
    done = run_twice(env, public_id)
    assert done["timeouts"] == 1 and done["reminders"] == 0
    entries = game_pages.public_page(env, public_id).entries
    assert [e.move for e in entries] == ["timeout"] and entries[0].source == "timeout"
    assert entries[0].seat == 0
    assert "time for this move ran out" in tell(entries[0].words)
    assert kinds(env, public_id).count("timeout") == 2  # one to each seat
    late = mails(env, public_id, seat=0, kind="timeout")[0]
    assert "may now claim the win" in late.text_body


def test_the_waiting_seat_claims_the_win_on_its_page(env, client):
    public_id = new_game(env, CLOCK, first=0)
    env.clock.advance(days=3, minutes=1)
    jobs.run_clock(env)
    link = link_in(mails(env, public_id, seat=1)[-1])
    page = client.get(link)
    assert "Claim the win" in page.text
    response = client.post(f"{link}/claim", data={"csrf_token": csrf_of(page.text), "n": 2})
    assert response.status_code == 303
    final = game_pages.public_page(env, public_id)
    assert final.game.status == "finished" and final.view.table.winner == 1
    assert [e.move for e in final.entries] == ["timeout", "claim"]


def test_moving_after_a_timeout_takes_the_claim_away(env):
    public_id = new_game(env, CLOCK, first=0)
    env.clock.advance(days=3, minutes=1)
    jobs.run_clock(env)
    play(env, public_id, 1)  # the late seat moves after all
    with pytest.raises(MoveRefused, match="only after your opponent's time has run out"):
        moves.claim_win(env, token(env, public_id, 1), 3, access.Client())


def test_in_a_waiting_game_a_timeout_gives_no_win(env):
    public_id = new_game(env, game_clock.GameClock(days_per_move=1, timeout_action="wait"), first=0)
    env.clock.advance(days=1, minutes=1)
    assert run_twice(env, public_id)["timeouts"] == 1
    with pytest.raises(ServiceError, match="the game waits"):
        moves.claim_win(env, token(env, public_id, 1), 2, access.Client())
    assert game_pages.public_page(env, public_id).game.status == "in_progress"
    assert "the game waits" in mails(env, public_id, seat=1, kind="timeout")[0].text_body


def test_vacation_stops_the_clock_and_the_reminders(env):
    public_id = new_game(env, CLOCK, first=0)
    env.clock.advance(hours=10)
    seat_settings.set_away(env, token(env, public_id, 0), 2, access.Client())
    env.clock.advance(hours=20)  # 30 h after the start, but only 10 h of running time
    assert run_twice(env, public_id)["reminders"] == 0
    env.clock.advance(days=2)  # 78 h: back since 58 h; 30 h of running time
    done = run_twice(env, public_id)
    assert done["timeouts"] == 0 and done["reminders"] == 1
    page = game_pages.seat_page(env, token(env, public_id, 0), access.Client())
    assert page.clock.deadline == page.since + timedelta(days=5)  # 3 days + 2 away
    assert page.vacation_left == pytest.approx(8)
    with pytest.raises(ServiceError, match="at most 8 days from now"):
        seat_settings.set_away(env, token(env, public_id, 0), 9, access.Client())
    env.clock.advance(days=2, minutes=1)  # past the moved deadline
    assert run_twice(env, public_id)["timeouts"] == 1


def test_coming_back_early_gives_the_days_back(env):
    public_id = new_game(env, CLOCK, first=0)
    t = token(env, public_id, 0)
    seat_settings.set_away(env, t, 5, access.Client())
    env.clock.advance(days=1)
    seat_settings.come_back(env, t, access.Client())
    page = game_pages.seat_page(env, t, access.Client())
    assert page.away_until is None
    assert page.vacation_left == pytest.approx(9)


def test_a_game_without_a_limit_never_times_out(env):
    public_id = new_game(env, game_clock.GameClock(days_per_move=None), first=0)
    env.clock.advance(days=400)
    done = run_twice(env, public_id)
    assert done["timeouts"] == 0 and done["reminders"] == 1
    assert to_move(env, public_id) == 0


def test_running_time_arithmetic():
    from datetime import UTC, datetime

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    away = [(t0 + timedelta(hours=5), t0 + timedelta(hours=15))]
    assert after_running(t0, timedelta(hours=4), away) == t0 + timedelta(hours=4)
    assert after_running(t0, timedelta(hours=6), away) == t0 + timedelta(hours=16)
    assert (
        reminders_due(t0, t0 + timedelta(hours=23), timedelta(hours=24), timedelta(hours=48), [])
        == 0
    )
    assert (
        reminders_due(
            t0, t0 + timedelta(hours=24 + 48), timedelta(hours=24), timedelta(hours=48), []
        )
        == 2
    )


def test_the_scheduler_registers_its_jobs(env):
    from apscheduler.schedulers.background import BackgroundScheduler

    from pbem.scheduler import add_jobs

    scheduler = BackgroundScheduler(timezone="UTC")
    add_jobs(scheduler, env)
    assert {job.id for job in scheduler.get_jobs()} == {
        "deliver",
        "clock",
        "digest",
        "limits",
        "computer",
        "computer-sweep",
        "analyse",
        "retention",
        "events",
    }


def test_a_note_goes_with_the_move_to_the_opponent(env, client):
    public_id = new_game(env, first=0)
    link = link_in(mails(env, public_id, seat=0)[-1])
    page = client.get(link)
    move = game_pages.legal_moves(env, token(env, public_id, 0))[0]
    preview = client.post(
        f"{link}/preview",
        data={"csrf_token": csrf_of(page.text), "n": 1, "move": move, "message": "  good luck!  "},
    )
    assert "With your note: “good luck!”" in preview.text
    client.post(
        f"{link}/move",
        data={"csrf_token": csrf_of(preview.text), "n": 1, "move": move, "message": "good luck!"},
    )
    turn = mails(env, public_id, seat=1, kind="your_turn")[-1]
    assert 'Ada writes: "good luck!"' in turn.text_body
    assert "good luck!" in client.get(link_in(turn)).text
