"""What one request costs the server's CPU: a move POST and a seat page, in one process;
and what the sender spends on one mail of a move.

    .venv/bin/python -m benchmarks.requests [--postgres URL]

The whole Flask app (routing, the reader's language, the use case, the database
round trips) through Flask's test client, with no HTTP server and no other load,
so the figure is the app's own cost per request, which benchmarks/load.py
multiplies by gunicorn's and the machine's overheads. A move's mails are written
by the sender, not the request: "mail sent" is one of them claimed, written from
the log, built as MIME bytes and marked sent (no SMTP conversation), in delivery
runs of ``MAIL_BATCH`` mails. Last, mails per second to a real SMTP server on
loopback (aiosmtpd), with one connection per delivery run and with one per mail. It prints
the CPU time of this process per request (the best of several rounds: on a shared
machine, the others run slow when a neighbour is busy).

For a figure that a busy machine does not move at all, count instructions instead:
``--callgrind`` runs the same under valgrind's callgrind, counting only around the
measured requests (``callgrind_control``), and prints millions of instructions per
request (about a minute; valgrind must be installed).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

from benchmarks.load import Game, drop_database, free_port, fresh_database, make_games
from pbem.mail.delivery import SmtpBackend
from pbem.services.scheduled import jobs

#: Mails per delivery run measured: a run writes both mails of a move from one replay.
MAIL_BATCH = 10


class Serialized:
    """A mail backend that builds each message's bytes, as SMTP would, and keeps none."""

    def send(self, message: EmailMessage) -> None:
        message.as_bytes()

    def close(self) -> None:
        pass


class Driver:
    """Moves and seat pages through the test client, on games the harness can see."""

    def __init__(self, url: str, folder: Path, games: int) -> None:
        self.games = make_games(url, games)
        os.environ.update(
            PBEM_DATABASE_URL=url,
            PBEM_ENV="testing",
            PBEM_SECRET_KEY="load",
            PBEM_INSTANCE_PATH=str(folder),
            PBEM_REPLAY_CACHE="512",
        )
        from pbem.web import create_app, warm_up

        self.app = create_app()
        warm_up(self.app)
        self.env = self.app.extensions["pbem"]
        self.backend = Serialized()
        self.client = self.app.test_client()
        self.rnd = random.Random(1)

    def move(self) -> None:
        live = [g for g in self.games if not g.over]
        game: Game = self.rnd.choice(live)
        seat, move = game.next
        answer = self.client.post(
            "/api/seat/moves",
            json={"n": game.n, "move": move},
            headers={"Authorization": f"Bearer {game.tokens[seat]}"},
        )
        assert answer.status_code == 201, answer.data
        game.n += 1

    def mails(self) -> None:
        """One delivery run of ``MAIL_BATCH`` mails, as the scheduler's runs send them."""
        sent = jobs.deliver_mail(self.env, self.backend, limit=MAIL_BATCH)
        assert sent == MAIL_BATCH, "no mail left to send"

    def page(self) -> None:
        game = self.rnd.choice(self.games)
        answer = self.client.get(f"/s/{self.rnd.choice(game.tokens)}")
        assert answer.status_code == 200


def cpu_per_call(call: Callable[[], None], count: int, rounds: int) -> float:
    """The best round's CPU seconds per call."""
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(count):
            call()
        best = min(best, (time.process_time() - started) / count)
    return best


def callgrind(*args: str) -> None:
    subprocess.run(["callgrind_control", *args, str(os.getpid())], check=True, capture_output=True)


def instructions(dump: str) -> int:
    for line in Path(dump).read_text(errors="replace").splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise SystemExit(f"no summary in {dump}")


def under_callgrind(argv: list[str]) -> None:
    """Run this script again under callgrind, counting nothing until it says so."""
    with tempfile.TemporaryDirectory() as out:
        command = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}/callgrind.out",
            sys.executable,
            "-m",
            "benchmarks.requests",
            *argv,
            "--counting",
            out,
        ]
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL)


def count_instructions(driver: Driver, count: int, out: Path) -> None:
    calls = (
        ("move POST", driver.move, count, 1),
        ("seat page", driver.page, count, 1),
        ("mail sent", driver.mails, count // MAIL_BATCH, MAIL_BATCH),
    )
    for label, call, times, each in calls:
        callgrind("-z")
        callgrind("-i", "on")
        for _ in range(times):
            call()
        before = set(out.glob("callgrind.out.*"))
        callgrind("-d")  # before switching off, which would drop what was counted
        callgrind("-i", "off")
        (dump,) = set(out.glob("callgrind.out.*")) - before
        millions = instructions(str(dump)) / (times * each) / 1e6
        print(f"{label:<10} {millions:6.2f} M instructions each", flush=True)


class OneShot:
    """The SMTP backend as it was: a connection of its own for every mail."""

    def __init__(self, backend: SmtpBackend) -> None:
        self.backend = backend

    def send(self, message: EmailMessage) -> None:
        try:
            self.backend.send(message)
        finally:
            self.backend.close()

    def close(self) -> None:
        self.backend.close()


def smtp_rates(driver: Driver, count: int = 200) -> None:
    """Mails per second (wall clock) to a real SMTP server on loopback (aiosmtpd, in this
    process), over one connection per delivery run and over one connection per mail."""
    try:
        from aiosmtpd.controller import Controller
    except ImportError:
        print("SMTP       (aiosmtpd not installed: ./test installs it)")
        return

    class Sink:
        async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
            return "250 OK"

    controller = Controller(Sink(), hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        config = driver.env.config.with_(
            mail_backend="smtp", smtp_host="127.0.0.1", smtp_port=controller.port
        )
        for label, backend in (
            ("one connection per run ", SmtpBackend(config)),
            ("one connection per mail", OneShot(SmtpBackend(config))),
        ):
            started, sent = time.perf_counter(), 0
            while sent < count and (n := jobs.deliver_mail(driver.env, backend, limit=50)):
                sent += n  # an outbox emptied early ends the count (more --games: more mail)
            rate = sent / (time.perf_counter() - started)
            print(f"SMTP, {label}  {rate:5.0f} mails/s ({sent} mails, loopback, runs of 50)")
    finally:
        controller.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres", default=os.environ.get("PBEM_TEST_DATABASE_URL"))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--count", type=int, default=60, help="requests per round")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--callgrind", action="store_true", help="count instructions (valgrind)")
    parser.add_argument("--counting", help=argparse.SUPPRESS)  # the run under callgrind
    args = parser.parse_args()
    if args.callgrind and not args.counting:
        under_callgrind([a for a in sys.argv[1:] if a != "--callgrind"] + ["--callgrind"])
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        url = fresh_database(args.postgres, folder)
        try:
            driver = Driver(url, folder, args.games)
            for _ in range(60):  # compiled statements, templates, caches, psycopg prepares
                driver.move()
            for _ in range(30):
                driver.page()
            for _ in range(3):  # a move's "your turn" that a seat page showed is dropped:
                if not jobs.deliver_mail(driver.env, driver.backend, limit=MAIL_BATCH):
                    break  # the outbox can run dry here, and "mail sent" then stops the count
            print(f"{'PostgreSQL' if args.postgres else 'SQLite'}, {args.games} games")
            if args.counting:
                count_instructions(driver, 100, Path(args.counting))
                return
            move = cpu_per_call(driver.move, args.count, args.rounds)
            page = cpu_per_call(driver.page, args.count // 2, args.rounds)
            runs = max(1, args.count // MAIL_BATCH)
            mail = cpu_per_call(driver.mails, runs, args.rounds) / MAIL_BATCH
            print(f"move POST  {move * 1000:5.2f} ms CPU per request (best of {args.rounds})")
            print(f"seat page  {page * 1000:5.2f} ms CPU per request (best of {args.rounds})")
            print(f"mail sent  {mail * 1000:5.2f} ms CPU per mail (best of {args.rounds})")
            smtp_rates(driver)
        finally:
            drop_database(args.postgres, url)


if __name__ == "__main__":
    main()
