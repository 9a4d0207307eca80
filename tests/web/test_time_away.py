"""Time away only ever adds (issue 32, finding 1): asking again, while away, on any path (one
game's seat page, "my games" for all games, the API), never brings the return earlier, never
moves a deadline earlier, and the allowance counts the time actually used. Driven hour by hour
over whole days on the injected clock."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from pbem.services.core import access
from pbem.services.core.errors import InvalidInput
from pbem.services.play import game_clock, game_pages, seat_settings
from pbem.services.scheduled import jobs
from tests.helpers import csrf_of
from tests.mail.play import new_game, token
from tests.support import own_database

# One day a move, three days away allowed: the tester's Bob, with half a day more.
CLOCK = game_clock.GameClock(days_per_move=1, vacation_days=3)

# A database of each test's own: the clock job, run every hour of days, then looks only at
# this test's games.
database_url, database = own_database("function")


def timed_out(env, public_id: str) -> bool:
    return "timeout" in [e.move for e in game_pages.public_page(env, public_id).entries]


def run_hours(env, hours: int) -> None:
    for _ in range(hours):
        env.clock.advance(hours=1)
        jobs.run_clock(env)


def away_until(env, t: str):
    return game_pages.seat_page(env, t, access.Client()).away_until


def deadline(env, t: str):
    return game_pages.seat_page(env, t, access.Client()).clock.deadline


def _away_then_ask_again(env, public_id: str):
    """Ada, to move, goes away for 2.5 days; 14 hours later she asks for 1 day."""
    t = token(env, public_id, 0)
    start = env.clock.now()
    seat_settings.set_away(env, t, 2.5, access.Client())
    assert away_until(env, t) == start + timedelta(hours=60)
    assert deadline(env, t) == start + timedelta(hours=84)
    run_hours(env, 14)
    return t, start


def _the_absence_and_the_deadline_stayed(env, public_id: str, t: str, start) -> None:
    assert away_until(env, t) == start + timedelta(hours=60)
    assert deadline(env, t) == start + timedelta(hours=84)
    run_hours(env, 83 - 14)  # her whole day of running time after 60 h away: no timeout yet
    assert not timed_out(env, public_id)
    run_hours(env, 2)
    assert timed_out(env, public_id)


def test_asking_for_less_on_the_seat_page_while_away_keeps_the_return(client, env):
    public_id = new_game(env, CLOCK, first=0)
    t, start = _away_then_ask_again(env, public_id)
    page = client.get(f"/s/{t}")
    answer = client.post(
        f"/s/{t}/away", data={"csrf_token": csrf_of(page.text), "days": "1"}, follow_redirects=True
    )
    assert answer.status_code == 200, answer.text
    assert "You were already away until Dec 4, 2026, 9:00\u202fPM (UTC): that stays." in answer.text
    _the_absence_and_the_deadline_stayed(env, public_id, t, start)


def test_asking_for_less_for_all_games_while_away_keeps_the_return(client, env):
    from tests.web.test_players import sign_in

    public_id = new_game(env, CLOCK, first=0)
    t, start = _away_then_ask_again(env, public_id)
    sign_in(client, env, "ada@example.test")
    page = client.get("/me")
    done = client.post(
        "/me/away", data={"csrf_token": csrf_of(page.text), "days": "1"}, follow_redirects=True
    )
    assert (
        "Against Bo you were already away until Dec 4, 2026, 9:00\u202fPM (UTC): that stays."
        in done.text
    )
    _the_absence_and_the_deadline_stayed(env, public_id, t, start)


def test_asking_for_less_through_the_api_while_away_keeps_the_return(client, env):
    public_id = new_game(env, CLOCK, first=0)
    t, start = _away_then_ask_again(env, public_id)
    bearer = {"Authorization": f"Bearer {t}"}
    answer = client.post("/api/seat/away", json={"days": 1}, headers=bearer)
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["away_until"] == "2026-12-04T21:00:00+00:00" and body["changed"] is False
    clock = client.get("/api/seat", headers=bearer).get_json()["clock"]
    assert clock["away_until"] == "2026-12-04T21:00:00+00:00"
    assert clock["deadline"] == "2026-12-05T21:00:00+00:00"
    assert clock["away_days_left"] == pytest.approx(0.5)
    _the_absence_and_the_deadline_stayed(env, public_id, t, start)


def test_asking_for_more_while_away_extends_within_the_time_used(client, env):
    public_id = new_game(env, CLOCK, first=0)
    t = token(env, public_id, 0)
    start = env.clock.now()
    seat_settings.set_away(env, t, 1, access.Client())
    run_hours(env, 14)  # 14 h of the allowance used; 58 h of the 72 are left from now
    with pytest.raises(InvalidInput) as refused:
        seat_settings.set_away(env, t, 2.5, access.Client())  # to 74 h: 2 h more than allowed
    assert str(refused.value.message) == (
        "You can be away for at most 2 days 10 hours from now in this game (until Dec 5, 2026,"
        " 9:00\u202fAM (UTC))."
    )
    assert away_until(env, t) == start + timedelta(days=1)  # the refusal changed nothing
    bearer = {"Authorization": f"Bearer {t}"}
    too_much = client.post("/api/seat/away", json={"days": 2.5}, headers=bearer)
    assert too_much.status_code == 400 and "at most 2 days 10 hours" in too_much.get_json()["error"]
    for bad in ("2", None, -1, 0, float("inf"), True, 400):
        assert client.post("/api/seat/away", json={"days": bad}, headers=bearer).status_code == 400
    answer = client.post("/api/seat/away", json={"days": 2}, headers=bearer)  # to 62 h
    assert answer.status_code == 200 and answer.get_json()["changed"] is True
    assert away_until(env, t) == start + timedelta(hours=62)
    assert deadline(env, t) == start + timedelta(hours=86)
    page = game_pages.seat_page(env, t, access.Client())
    assert page.vacation_left == pytest.approx(10 / 24)  # 72 h less 62 h used or planned
    run_hours(env, 85 - 14)
    assert not timed_out(env, public_id)
    run_hours(env, 2)
    assert timed_out(env, public_id)


def test_coming_back_through_the_api_gives_the_rest_back(client, env):
    public_id = new_game(env, CLOCK, first=0)
    t = token(env, public_id, 0)
    bearer = {"Authorization": f"Bearer {t}"}
    assert client.post("/api/seat/away", json={"days": 2}, headers=bearer).status_code == 200
    run_hours(env, 12)
    back = client.post("/api/seat/back", headers=bearer)
    assert back.status_code == 200 and back.get_json() == {"away_until": None}
    clock = client.get("/api/seat", headers=bearer).get_json()["clock"]
    assert clock["away_until"] is None and clock["away_days_left"] == pytest.approx(2.5)


def test_the_seat_page_says_what_is_left_in_days_or_hours_in_each_language(client, env):
    public_id = new_game(env, CLOCK, first=0)
    t = token(env, public_id, 0)
    seat_settings.set_away(env, t, 2.5, access.Client())
    run_hours(env, 61)  # back; half a day of the allowance is left
    for language, said in (
        ("en", "12 hours left in this game"),
        ("uk", "12 годин"),
        ("el", "12 ώρες"),
        ("zh", "12小时"),
        ("fa", "۱۲ ساعت"),
    ):
        seat_settings.set_reader(env, t, language, "UTC", access.Client())
        page = client.get(f"/s/{t}").text
        assert said in page, language
        assert not re.search(r">[^<]*0[.,]5[^<]*<", page), language  # no fraction in words
    with pytest.raises(InvalidInput) as refused:
        seat_settings.set_away(env, t, 1, access.Client())
    seat_settings.set_reader(env, t, "uk", "UTC", access.Client())
    from pbem.i18n import use_reader

    with use_reader("uk", "UTC"):
        told = str(refused.value.message)
    assert "12 годин" in told and "0.5" not in told and "днів" not in told


@pytest.mark.parametrize(
    ("language", "hours", "said"),
    [
        ("en", 191, "7 days 23 hours"),
        ("el", 191, "7 ημέρες 23 ώρες"),
        ("uk", 191, "7 днів і 23 години"),
        ("fa", 191, "۷ روز ۲۳ ساعت"),
        ("zh", 191, "7天23小时"),
        ("en", 25, "1 day 1 hour"),
        ("uk", 26, "1 день і 2 години"),
    ],
)
def test_a_length_of_days_and_hours_is_told_in_both(language, hours, said):
    """Not "191 hours": whole days and whole hours, each with the language's plural."""
    from datetime import timedelta

    from pbem.i18n import shown_duration, use_reader

    length = timedelta(hours=hours, minutes=59)
    with use_reader(language, "UTC"):
        assert shown_duration(length) == said
        assert shown_duration(timedelta(days=2)) not in ("", said)
        assert "hour" not in shown_duration(timedelta(days=2))  # whole days stay days
