"""What the pages say of the clock, on the injected clock over whole days: the times of a
seat's audit, the turn after a timeout, time away asked for in all games at once."""

from __future__ import annotations

from pbem.services import games, jobs, log, settings
from tests.helpers import csrf_of
from tests.mail.play import new_game, play, token

CLOCK = games.GameClock(days_per_move=3, reminder_after_hours=24, reminder_every_hours=48)


def test_a_seats_audit_and_replay_show_times_in_the_seats_zone(client, env):
    public_id = new_game(env, CLOCK, first=0)
    t = token(env, public_id, 0)
    settings.set_reader(env, t, "en", "Asia/Tehran", log.Client())
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
