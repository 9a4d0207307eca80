"""Two `pbem scheduler` processes at once on one database, with a real SMTP server.

One sends, one stands by. Whatever happens to the active one (killed, killed right after
the relay accepted a mail, stopped and resumed, its database connections cut), the
standby takes over within the lease time, nothing runs on two schedulers at once, no
mail is lost, and a mail goes out twice only as docs/scaling.md says: after a crash
between the relay's 250 and the commit that records it, and then only after
PBEM_MAIL_RECOVER_AFTER, with the same Message-ID.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from pbem.services.play import game_pages, new_games
from pbem.store.db import is_sqlite
from tests.helpers import mails
from tests.mail.conftest import Collector, SmtpServer

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

LEASE = 3  #: PBEM_LEASE_SECONDS of these schedulers
RENEW = 1  #: PBEM_LEASE_RENEW_EVERY
FENCED = "no longer the active scheduler"


class Relay(Collector):
    """Collects each mail with the time it came in; ``then`` runs once, right after the
    next mail is accepted (before the 250 goes back), in the server's thread."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived: list[float] = []
        self.then: Callable[[], None] | None = None

    async def handle_DATA(self, server, session, envelope) -> str:
        answer = await super().handle_DATA(server, session, envelope)
        self.arrived.append(time.time())
        then, self.then = self.then, None
        if then is not None:
            then()
        return answer


class Scheduler:
    """``pbem scheduler`` as a process of its own, its log in a file."""

    def __init__(self, env, database_url: str, smtp_port: int, name: str, **settings) -> None:
        if not is_sqlite(database_url):  # tag its connections, to cut only those
            database_url += ("&" if "?" in database_url else "?") + f"application_name={name}"
        self.name = name
        self.log = Path(env.config.instance_path) / f"{name}.log"
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
            "PBEM_LEASE_SECONDS": str(LEASE),
            "PBEM_LEASE_RENEW_EVERY": str(RENEW),
            **settings,
        }
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "pbem", "scheduler"],
                env=environ,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def ours(self) -> str:
        """The log without APScheduler's line for every run of every job."""
        return "\n".join(x for x in self.text().splitlines() if "apscheduler.executors" not in x)

    def wait_for(self, words: str, timeout: float = 30.0) -> None:
        end = time.time() + timeout
        while time.time() < end:
            if words in self.text():
                return
            time.sleep(0.2)
        raise AssertionError(f"{self.name} never logged {words!r}:\n{self.text()[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a stopped process cannot act on SIGTERM
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture
def relay() -> Iterator[SmtpServer]:
    server = SmtpServer()
    server.collector = Relay()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def start(env, database_url, relay) -> Iterator[Callable[..., Scheduler]]:
    started: list[Scheduler] = []

    def launch(name: str, **settings: str) -> Scheduler:
        scheduler = Scheduler(env, database_url, relay.port, name, **settings)
        started.append(scheduler)
        return scheduler

    yield launch
    for scheduler in started:
        scheduler.stop()


def _game(env) -> str:
    return new_games.create_game(
        env, (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test"))
    ).public_id


def _ids(env, public_ids: list[str]) -> set[str]:
    return {m.message_id for p in public_ids for m in mails(env, p)}


def _wait_sent(env, public_ids: list[str], timeout: float = 40.0, *logs: Scheduler) -> float:
    """Wait until every mail of these games is sent; returns when that was seen."""
    end = time.time() + timeout
    while time.time() < end:
        statuses = [m.status for p in public_ids for m in mails(env, p)]
        if all(status == "sent" for status in statuses):
            return time.time()
        time.sleep(0.2)
    told = "\n".join(f"{s.name}:\n{s.ours()[-4000:]}" for s in logs)
    raise AssertionError(f"mail was not delivered in time: {statuses}\n{told}")


def _leader_and_standby(env, start, **settings: str) -> tuple[Scheduler, Scheduler, str]:
    """``a`` active (it delivered a game's mail alone), ``b`` started after it and standing by."""
    a = start("pbem-scheduler-a", **settings)
    probe = _game(env)
    _wait_sent(env, [probe])
    b = start("pbem-scheduler-b", **settings)
    b.wait_for("standing by")
    return a, b, probe


def _copies(relay: SmtpServer) -> Counter[str]:
    return Counter(m["Message-ID"] for m in relay.received)


def _said(message) -> tuple[object, ...]:
    """A mail's headers and both bodies (not its MIME boundaries, new at each build)."""
    return (
        sorted((k, str(v)) for k, v in message.items() if k.lower() != "content-type"),
        message.get_body(("plain",)).get_content(),
        message.get_body(("html",)).get_content(),
    )


def _no_tracebacks(*schedulers: Scheduler) -> None:
    for scheduler in schedulers:
        assert "Traceback" not in scheduler.text(), scheduler.text()[-3000:]


def test_the_standby_takes_over_when_the_active_scheduler_is_killed(env, start, relay):
    a, b, probe = _leader_and_standby(env, start)
    batch1 = [_game(env) for _ in range(5)]
    _wait_sent(env, batch1)
    a.proc.send_signal(signal.SIGKILL)  # the active scheduler dies
    a.proc.wait(10)
    killed = time.time()
    batch2 = [_game(env) for _ in range(5)]
    took = _wait_sent(env, batch2) - killed  # the standby took over when the lease lapsed
    print(f"killed: the standby delivered {took:.1f} s after the kill")
    assert took < LEASE + RENEW + 10, took
    copies = _copies(relay)
    assert all(copies[i] == 1 for i in _ids(env, [probe, *batch1, *batch2]))  # each exactly once
    _no_tracebacks(b)


def test_a_scheduler_stopped_with_sigterm_lets_the_lease_go_at_once(env, start, relay):
    """`systemctl stop`: the standby need not wait for the lease (20 s here) to lapse."""
    a, b, probe = _leader_and_standby(env, start, PBEM_LEASE_SECONDS="20")
    a.proc.terminate()
    assert a.proc.wait(20) == 0
    stopped = time.time()
    game = _game(env)
    took = _wait_sent(env, [game], 15, a, b) - stopped
    print(f"SIGTERM: the standby delivered {took:.1f} s after the stop")
    copies = _copies(relay)
    assert all(copies[i] == 1 for i in _ids(env, [probe, game]))
    _no_tracebacks(a, b)


def test_a_sender_killed_right_after_the_relay_accepted_a_mail(env, start, relay):
    """The crash docs/scaling.md speaks of: the mail went out, its row was not yet marked
    sent. The standby sends it again with the same Message-ID, and only after
    PBEM_MAIL_RECOVER_AFTER; every other mail goes out once."""
    recover_after = 8
    a, b, probe = _leader_and_standby(env, start, PBEM_MAIL_RECOVER_AFTER=str(recover_after))
    relay.collector.then = lambda: os.kill(a.pid, signal.SIGKILL)
    game = _game(env)
    a.proc.wait(10)  # killed by the relay as it accepted the game's first mail
    _wait_sent(env, [game], timeout=recover_after + 40)
    later = _game(env)
    _wait_sent(env, [later])
    copies = _copies(relay)
    twice = [i for i, n in copies.items() if n == 2]
    assert len(twice) == 1 and twice[0] in _ids(env, [game]), copies
    assert all(copies[i] == 1 for i in _ids(env, [probe, game, later]) - set(twice))
    first, second = (k for k, m in enumerate(relay.received) if m["Message-ID"] == twice[0])
    assert _said(relay.received[first]) == _said(relay.received[second])  # the same mail
    gap = relay.collector.arrived[second] - relay.collector.arrived[first]
    print(f"killed after the 250: the copy came {gap:.1f} s after the first")
    assert gap >= recover_after, gap  # not at once: only after the recovery time
    _no_tracebacks(b)


def test_a_hung_scheduler_is_replaced_and_stops_quietly_when_it_wakes(env, start, relay):
    """SIGSTOP in the middle of a send (the relay has the mail, the sender has not heard
    its 250): the standby takes over within the lease time and does not send that mail
    again; woken, the old scheduler records the mail it sent, finds itself fenced and
    runs nothing more. Every mail arrives exactly once."""
    a, b, probe = _leader_and_standby(env, start, PBEM_MAIL_RECOVER_AFTER="120")
    stopped: list[float] = []

    def stop_sender() -> None:
        os.kill(a.pid, signal.SIGSTOP)
        stopped.append(time.time())

    relay.collector.then = stop_sender
    game = _game(env)
    _wait_until(lambda: stopped, 20)
    during = [_game(env) for _ in range(3)]
    took = _wait_sent(env, during) - stopped[0]  # the standby took over
    print(f"stopped: the standby delivered {took:.1f} s after the stop")
    assert took < LEASE + RENEW + 10, took
    held = [m for m in mails(env, game) if m.status != "sent"]
    assert [m.status for m in held] == ["sending"]  # the hung sender's, not sent again
    a.proc.send_signal(signal.SIGCONT)
    _wait_sent(env, [game], timeout=20)  # the woken sender recorded what the relay accepted
    a.wait_for(FENCED)
    after = [_game(env) for _ in range(3)]
    _wait_sent(env, after)
    copies = _copies(relay)
    assert all(copies[i] == 1 for i in _ids(env, [probe, game, *during, *after])), copies
    assert a.proc.poll() is None and b.proc.poll() is None  # the old one stands by now
    assert a.text().count(FENCED) == 1
    _no_tracebacks(a, b)
    with env.db.read() as session:  # one takeover: a held token 1, b holds token 2
        assert session.execute(text("SELECT token FROM scheduler_lease")).scalar() == 2


def test_cut_database_connections_never_make_two_active_schedulers(env, start, relay):
    """The tester's case: the active scheduler's connections ended by the server. It
    reconnects (or, if its lease lapsed meanwhile, is fenced); either way no mail goes out
    twice, no job runs beside another scheduler's, and nobody dies with a traceback."""
    if is_sqlite(env.config.database_url):
        pytest.skip("SQLite has no connections to cut")
    a, b, probe = _leader_and_standby(env, start)
    sent: list[str] = []
    for _ in range(4):
        with env.db.engine.connect() as admin:
            admin.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE application_name = 'pbem-scheduler-a'"
                )
            )
            admin.commit()
        sent += [_game(env) for _ in range(2)]
        time.sleep(1.5)
    _wait_sent(env, sent, 40, a, b)
    copies = _copies(relay)
    assert all(copies[i] == 1 for i in _ids(env, [probe, *sent])), copies
    assert a.proc.poll() is None and b.proc.poll() is None
    _no_tracebacks(a, b)


def _wait_until(condition: Callable[[], object], timeout: float) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_a_real_scheduler_answers_a_move_against_the_computer_when_woken(env, start):
    """`pbem scheduler` with the computer's job every hour: only the wake-up (NOTIFY and
    LISTEN on PostgreSQL, the short poll on SQLite) can answer the person's move in time."""
    from pbem.services.core import access
    from pbem.services.play import computer, moves

    created = computer.start(
        env, new_games.PlayerIn("Ada", "woken@example.test"), "easy", contribution=bytes(32)
    )
    t = created.tokens[0]
    start("pbem-scheduler-w", PBEM_COMPUTER_EVERY="3600", PBEM_COMPUTER_SWEEP_EVERY="3600")
    # the computer's first move if it starts (its first run), or the person's turn at once
    end = time.time() + 40
    while not (page := game_pages.seat_page(env, t, access.Client())).view.my_turn:
        assert time.time() < end, "the scheduler did not start"
        time.sleep(0.2)
    time.sleep(2)  # the first runs are over: from now on only a wake-up plays
    moves.submit_move(env, t, page.next_n, game_pages.legal_moves(env, t)[0], access.Client())
    moved = time.time()
    while not game_pages.seat_page(env, t, access.Client()).view.my_turn:
        assert time.time() - moved < 10, "no answer: the wake-up did not wake the job"
        time.sleep(0.05)
