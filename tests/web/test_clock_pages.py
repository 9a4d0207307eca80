"""What the pages say of the clock, on the injected clock over whole days: the times of a
seat's audit, the turn after a timeout, time away asked for in all games at once."""

from __future__ import annotations

import pytest

from pbem.services.core import access
from pbem.services.play import game_clock, game_pages, new_games, seat_settings
from pbem.services.scheduled import jobs
from tests.mail.play import new_game, play, token
from tests.support import own_database

CLOCK = game_clock.GameClock(days_per_move=3, reminder_after_hours=24, reminder_every_hours=48)


# A database of each test's own: the clock job, run every hour of days, then looks only
# at this test's games, not at every game the module's earlier tests left running.
database_url, database = own_database("function")


def test_a_seats_audit_and_replay_show_times_in_the_seats_zone(client, env):
    public_id = new_game(env, CLOCK, first=0)
    t = token(env, public_id, 0)
    seat_settings.set_reader(env, t, "en", "Asia/Tehran", access.Client())
    env.clock.advance(days=1)  # 2026-12-03 09:00 UTC is 12:30 in Tehran
    play(env, public_id, 1)
    for cookie in (None, "America/New_York"):  # an invited player's browser, or another zone
        if cookie is None:
            client.delete_cookie("pbem_tz")
        else:
            client.set_cookie("pbem_tz", cookie)
        audit = client.get(f"/s/{t}/audit/1").text
        assert "12:30" in audit and "GMT+03:30" in audit, cookie
        replay = client.get(f"/s/{t}/replay?n=1").text
        assert "12:30" in replay and "GMT+03:30" in replay, cookie


def run_days(env, days: float, step_hours: float = 1) -> None:
    """Run the clock job every ``step_hours`` while ``days`` pass."""
    for _ in range(round(days * 24 / step_hours)):
        env.clock.advance(hours=step_hours)
        jobs.run_clock(env)


def test_after_a_timeout_the_late_seat_reads_that_the_opponent_may_claim(client, env):
    public_id = new_game(env, CLOCK, first=0)
    late, waiting = f"/s/{token(env, public_id, 0)}", f"/s/{token(env, public_id, 1)}"
    run_days(env, 2)
    assert "may now claim" not in client.get(late).text
    run_days(env, 2)  # the deadline passed at 72 h
    page = client.get(late).text
    assert "Your time for this move has run out: Bo may now claim the win." in page
    assert "moving now takes that chance away from Bo" in page
    other = client.get(waiting).text
    assert "You may claim the win now" in other and "Claim the win" in other
    play(env, public_id, 1)  # the late seat moves after all: the chance is gone
    assert "may now claim" not in client.get(late).text
    assert "Claim the win" not in client.get(waiting).text


def test_after_a_timeout_in_a_waiting_game_the_late_seat_reads_that_it_waits(client, env):
    public_id = new_game(env, game_clock.GameClock(days_per_move=1, timeout_action="wait"), first=0)
    run_days(env, 2)
    page = client.get(f"/s/{token(env, public_id, 0)}").text
    assert "Your time for this move has run out. In this game a timeout gives no win" in page
    assert "may now claim" not in page


def test_days_of_time_away_left_are_counted_in_words(client, env):
    from pbem.services.core.errors import InvalidInput

    clock = game_clock.GameClock(days_per_move=20, vacation_days=3)
    public_id = new_game(env, clock, first=0)
    t = token(env, public_id, 0)
    seat_settings.set_away(env, t, 2, access.Client())
    run_days(env, 2)
    page = client.get(f"/s/{t}").text
    assert "(1 day left in this game)" in page and "1 days" not in page
    with pytest.raises(InvalidInput) as refused:
        seat_settings.set_away(env, t, 2, access.Client())
    assert str(refused.value.message) == (
        "You can be away for at most 1 day from now in this game"
        " (until Dec 5, 2026, 9:00\u202fAM (UTC))."
    )
    seat_settings.set_away(env, t, 0.5, access.Client())
    run_days(env, 1)
    with pytest.raises(InvalidInput) as refused:
        seat_settings.set_away(env, t, 1, access.Client())
    assert str(refused.value.message) == (  # half a day, in hours: no fraction to misspell
        "You can be away for at most 12 hours from now in this game"
        " (until Dec 5, 2026, 9:00\u202fPM (UTC))."
    )


def test_days_away_in_all_games_store_what_each_allowance_lets_through_and_say_so(client, env):
    from tests.helpers import csrf_of
    from tests.web.test_players import sign_in

    me = "away-everywhere@example.test"
    ids = {
        allowance: new_games.create_game(
            env,
            (
                new_games.PlayerIn("Me", me),
                new_games.PlayerIn(f"Op{allowance}", f"op{allowance}@x.test"),
            ),
            first_player=0,
            clock=game_clock.GameClock(days_per_move=3, vacation_days=allowance),
        ).public_id
        for allowance in (10, 2, 0)
    }
    sign_in(client, env, me)
    page = client.get("/me")
    done = client.post(
        "/me/away", data={"csrf_token": csrf_of(page.text), "days": "5"}, follow_redirects=True
    )
    text = done.text
    assert "Your clock is stopped until Dec 7, 2026, 9:00\u202fAM (UTC) in 1 running game." in text
    assert (
        "Against Op2 the time away left was 2 days: your clock there is stopped until "
        "Dec 4, 2026, 9:00\u202fAM (UTC)." in text
    )
    assert "In 1 game no days away are left: its clock runs on (Op0)." in text
    assert "Your clock is stopped in your running games" not in text
    pages = {
        a: game_pages.seat_page(env, token(env, i, 0), access.Client()) for a, i in ids.items()
    }
    assert [pages[a].vacation_left for a in (10, 2, 0)] == [5, 0, 0]
    assert pages[10].clock.away and pages[2].clock.away and not pages[0].clock.away
    run_days(env, 3)  # the game without days away times out; the others' clocks stopped
    timed_out = {
        a
        for a, i in ids.items()
        if "timeout" in [e.move for e in game_pages.public_page(env, i).entries]
    }
    assert timed_out == {0}
    run_days(env, 2)  # 5 days: the game with 2 days away has had 3 days of running time
    timed_out = {
        a
        for a, i in ids.items()
        if "timeout" in [e.move for e in game_pages.public_page(env, i).entries]
    }
    assert timed_out == {0, 2}


def _rows(env, public_id: str):
    from sqlalchemy import select

    from pbem.store.models import Game, OutboxMessage

    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        rows = session.scalars(
            select(OutboxMessage).where(OutboxMessage.game_id == game.id).order_by(OutboxMessage.id)
        ).all()
        session.expunge_all()
    return rows


def test_an_erased_account_is_mailed_nothing_and_its_queued_mails_go(client, env):
    from sqlalchemy import func, select

    from pbem.store.models import OutboxMessage
    from tests.helpers import csrf_of
    from tests.web.test_players import sign_in

    leaving = "Leaving.Clock@example.test"
    public_id = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Leaving", leaving),
            new_games.PlayerIn("Staying", "staying@example.test"),
        ),
        first_player=0,
        clock=CLOCK,
    ).public_id
    run_days(env, 2)  # a reminder and a warning for Leaving, still in the outbox
    queued = {r.kind for r in _rows(env, public_id) if r.seat == 0 and r.status == "pending"}
    assert {"invitation", "reminder", "deadline_warning"} <= queued
    sign_in(client, env, leaving.lower())  # its sign-in mail waits in the outbox too
    page = client.get("/me")
    client.post("/me/erase", data={"csrf_token": csrf_of(page.text), "confirm": "erase"})
    with env.db.read() as session:
        to_old = session.scalars(
            select(OutboxMessage).where(
                func.lower(OutboxMessage.to_addr) == leaving.lower(),
                OutboxMessage.status != "sent",
            )
        ).all()
    assert to_old == []  # the sign-in mail too
    assert [r for r in _rows(env, public_id) if r.seat == 0] == []
    assert any(r.seat == 1 for r in _rows(env, public_id))  # the opponent's mails stay
    run_days(env, 3)  # past the deadline: the timeout is logged, and told to Staying only
    assert "timeout" in [e.move for e in game_pages.public_page(env, public_id).entries]
    rows = _rows(env, public_id)
    assert [r for r in rows if r.seat == 0 or r.to_addr.endswith("@invalid")] == []
    assert "timeout" in [r.kind for r in rows if r.seat == 1]
    jobs.send_digests(env)
    assert not [r for r in _rows(env, public_id) if r.to_addr.endswith("@invalid")]


def test_a_mail_queued_to_an_erased_address_before_is_never_sent(env):
    from pbem.mail import outbox_row as mails_out
    from pbem.store.models import OutboxMessage

    class Kept:
        def __init__(self) -> None:
            self.sent: list = []

        def send(self, message, sender=None) -> None:
            self.sent.append(message)

        def close(self) -> None:
            pass

    row = mails_out.message(
        now=env.clock.now(),
        mail_from=env.config.mail_from,
        kind="reminder",
        to="erased-abcd@invalid",
        subject="s",
        text="t",
        html="<p>t</p>",
    )
    with env.db.write() as session:
        session.add(OutboxMessage(**row))  # as a database from before this check holds it
    backend = Kept()
    jobs.deliver_mail(env, backend, limit=10_000)
    assert not [m for m in backend.sent if "invalid" in str(m["To"])]
    with env.db.read() as session:
        stored = session.query(OutboxMessage).filter_by(message_id=row["message_id"]).one()
        assert stored.status == "failed" and stored.sent_at is None
