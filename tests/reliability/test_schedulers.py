"""Two `pbem scheduler` processes at once: one sends, one stands by; nothing is sent twice,
and when the active one is killed the standby takes over and sends the rest."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from pbem.services import games
from tests.helpers import mails
from tests.mail.conftest import SmtpServer

pytestmark = [pytest.mark.reliability, pytest.mark.slow]


def _scheduler(env, database_url, smtp_port, more=None) -> subprocess.Popen:
    environ = {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_ENV": "testing",
        "PBEM_SECRET_KEY": "test-secret-key",
        "PBEM_MAIL_BACKEND": "smtp",
        "PBEM_SMTP_HOST": "127.0.0.1",
        "PBEM_SMTP_PORT": str(smtp_port),
        "PBEM_INSTANCE_PATH": str(env.config.instance_path),
        "PBEM_DELIVER_EVERY": "1",
        "PBEM_CLOCK_EVERY": "3600",
        "PBEM_DIGEST_EVERY": "3600",
        **(more or {}),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "pbem", "scheduler"],
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_sent(env, public_ids, timeout=40.0) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if all(m.status == "sent" for p in public_ids for m in mails(env, p)):
            return
        time.sleep(0.3)
    raise AssertionError("mail was not delivered in time")


def test_two_schedulers_send_each_mail_once_and_the_standby_takes_over(env, database_url):
    server = SmtpServer()
    server.start()
    first = _scheduler(env, database_url, server.port)
    second = None
    try:
        # the first one is the active scheduler once it has delivered, alone, a game's mail
        probe = [
            games.create_game(
                env, (games.PlayerIn("P", "p@example.test"), games.PlayerIn("Q", "q@example.test"))
            ).public_id
        ]
        _wait_sent(env, probe)
        second = _scheduler(env, database_url, server.port)
        batch1 = [
            games.create_game(
                env, (games.PlayerIn("A", "a@example.test"), games.PlayerIn("B", "b@example.test"))
            ).public_id
            for _ in range(5)
        ]
        _wait_sent(env, batch1)
        first.send_signal(signal.SIGKILL)  # the active scheduler dies
        first.wait(10)
        batch2 = [
            games.create_game(
                env, (games.PlayerIn("C", "c@example.test"), games.PlayerIn("D", "d@example.test"))
            ).public_id
            for _ in range(5)
        ]
        _wait_sent(env, batch2)  # the standby took over
        ids = [m["Message-ID"] for m in server.received]
        ours = {m.message_id for p in probe + batch1 + batch2 for m in mails(env, p)}
        assert sorted(i for i in ids if i in ours) == sorted(ours)  # each exactly once
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(10)
        server.stop()


def test_a_real_scheduler_answers_a_move_against_the_computer_when_woken(env, database_url):
    """`pbem scheduler` with the computer's job every hour: only the wake-up (NOTIFY and
    LISTEN on PostgreSQL, the short poll on SQLite) can answer the person's move in time."""
    from pbem.services import computer, log, moves

    created = computer.start(
        env, games.PlayerIn("Ada", "woken@example.test"), "easy", contribution=bytes(32)
    )
    t = created.tokens[0]
    environ = {"PBEM_COMPUTER_EVERY": "3600", "PBEM_COMPUTER_SWEEP_EVERY": "3600"}
    proc = _scheduler(env, database_url, 1, environ)
    try:
        # the computer's first move if it starts (its first run), or the person's turn at once
        end = time.time() + 40
        while not (page := games.seat_page(env, t, log.Client())).view.my_turn:
            assert time.time() < end, "the scheduler did not start"
            time.sleep(0.2)
        time.sleep(2)  # the first runs are over: from now on only a wake-up plays
        moves.submit_move(env, t, page.next_n, games.legal_moves(env, t)[0], log.Client())
        moved = time.time()
        while not games.seat_page(env, t, log.Client()).view.my_turn:
            assert time.time() - moved < 10, "no answer: the wake-up did not wake the job"
            time.sleep(0.05)
    finally:
        proc.terminate()
        proc.wait(10)
