"""Mails the scheduler writes (reminders, warnings, timeouts) are in each recipient's
language and time zone, whatever language the process happens to be in (issue 8)."""

from __future__ import annotations

import re

from pbem.i18n import use_reader
from pbem.services.play import game_clock, new_games
from pbem.services.scheduled import jobs
from tests.helpers import mails

HAN = re.compile(r"[\u4e00-\u9fff]")
ARABIC_SCRIPT = re.compile(r"[\u0600-\u06ff]")
GREEK = re.compile(r"[\u0370-\u03ff]")
CLOCK = game_clock.GameClock(days_per_move=3, reminder_after_hours=24, reminder_every_hours=48)
SEATS = (
    new_games.PlayerIn("梅", "mei@example.test", "zh", "Asia/Shanghai"),
    new_games.PlayerIn("داریوش", "dariush@example.test", "fa", "Asia/Tehran"),
)


def test_reminder_warning_and_timeout_reach_each_seat_in_its_language(env):
    public_id = new_games.create_game(env, SEATS, first_player=0, clock=CLOCK).public_id
    with use_reader("el", "America/New_York"):  # the job's own reader must not leak in
        env.clock.advance(hours=25)
        jobs.run_clock(env)
        env.clock.advance(hours=23)
        jobs.run_clock(env)
        env.clock.advance(hours=25)
        jobs.run_clock(env)
    reminder = mails(env, public_id, seat=0, kind="reminder")[0]
    warning = mails(env, public_id, seat=0, kind="deadline_warning")[0]
    for mail in (reminder, warning):
        assert mail.headers["Content-Language"] == "zh"
        assert HAN.search(mail.subject) and HAN.search(mail.text_body)
        assert "GMT+08:00" in mail.text_body  # the deadline in Shanghai time
        assert "GMT-05:00" not in mail.text_body
        assert not GREEK.search(mail.text_body)
    late, told = (mails(env, public_id, seat=s, kind="timeout")[0] for s in (0, 1))
    assert late.headers["Content-Language"] == "zh" and HAN.search(late.text_body)
    assert told.headers["Content-Language"] == "fa"
    assert ARABIC_SCRIPT.search(told.subject) and ARABIC_SCRIPT.search(told.text_body)
    assert 'dir="rtl"' in told.html_body
