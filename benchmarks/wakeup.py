"""How soon the computer's answer is visible after the player's move (issue 32, 5).

    .venv/bin/python -m benchmarks.wakeup [--postgres URL] [--moves 60] [--level normal]

A real ``pbem scheduler`` process (its defaults: the ``computer`` job every 2 s, and the
wake-up of pbem/wakeup.py) on a fresh database; the player is this process, through the
whole Flask app (its test client, no HTTP server). Each sample is one move of the player,
``POST /api/seat/moves``, timed from just before the POST until the computer's answer is
visible, measured two ways, alternately:

- *the log*: ``GET /g/<id>/n`` asked every 10 ms until it says the computer moved: when
  the answer is there for any reader (the scheduler woke, searched, logged, committed);
- *the page*: as static/follow.js does it, ``GET /g/<id>/n`` every 250 ms, then the seat
  page itself (``GET /s/<token>``): when a player on the page sees the move.

Games against the computer at ``--level`` are started as needed (a new one when one
ends). Prints the median, 90th and 99th percentile and the maximum of each, in seconds.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.load import drop_database, fresh_database

ROOT = Path(__file__).resolve().parents[1]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class Player:
    """Plays games against the computer through the app, one move at a time."""

    def __init__(self, url: str, folder: Path, level: str) -> None:
        from benchmarks.testing_app import testing_app

        self.app, self.env, self.client = testing_app(url, folder, "wakeup")
        self.level = level
        self.rnd = random.Random(1)
        self.token = ""
        self.public_id = ""
        self.games = 0

    def new_game(self) -> None:
        from pbem.services.play import computer, new_games

        person = new_games.PlayerIn("Bench", f"bench{self.games}@example.test")
        created = computer.start(self.env, person, self.level, contribution=os.urandom(32))
        self.token, self.public_id = created.tokens[0], created.public_id
        self.games += 1

    def seat(self) -> dict:
        return self.client.get(
            "/api/seat", headers={"Authorization": f"Bearer {self.token}"}
        ).get_json()

    def logged(self) -> int:
        return self.client.get(f"/g/{self.public_id}/n").get_json()["n"]

    def my_turn(self, timeout: float = 60) -> dict:
        """Wait for the person's turn (the computer may start, or answer a round's end)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            seat = self.seat()
            if seat["status"] != "in_progress" or seat["your_turn"]:
                return seat
            time.sleep(0.05)
        raise RuntimeError("the computer did not move within a minute: is the scheduler up?")

    def sample(self, page: bool) -> float | None:
        """One move and the time until the computer's answer is visible; None when the move
        asks for no answer (it ended the game, or a round the person starts again)."""
        seat = self.my_turn()
        if seat["status"] != "in_progress":
            return None
        legal = self.client.get(
            "/api/seat/legal-moves", headers={"Authorization": f"Bearer {self.token}"}
        ).get_json()["moves"]
        n = seat["next_n"]
        started = time.perf_counter()
        answer = self.client.post(
            "/api/seat/moves",
            json={"n": n, "move": self.rnd.choice(legal)},
            headers={"Authorization": f"Bearer {self.token}"},
        )
        assert answer.status_code == 201, answer.get_json()
        if answer.get_json()["to_move"] != 1:  # the computer's seat
            return None
        step = 0.25 if page else 0.01
        while self.logged() <= n:
            time.sleep(step)
        if page:
            assert self.client.get(f"/s/{self.token}").status_code == 200
        return time.perf_counter() - started


def scheduler(url: str, folder: Path) -> subprocess.Popen:
    environ = {
        **os.environ,
        "PBEM_DATABASE_URL": url,
        "PBEM_ENV": "testing",
        "PBEM_SECRET_KEY": "wakeup",
        "PBEM_INSTANCE_PATH": str(folder),
        "PBEM_MAIL_BACKEND": "file",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "pbem", "scheduler"],
        env=environ,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=open(folder / "scheduler.log", "w"),  # the process's
    )


def report(label: str, values: list[float]) -> None:
    print(
        f"{label:<9} {len(values):4d} moves: median {statistics.median(values):.3f} s, "
        f"p90 {percentile(values, 90):.3f} s, p99 {percentile(values, 99):.3f} s, "
        f"max {max(values):.3f} s",
        flush=True,
    )


def run(server: str | None, moves: int, level: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix="pbem-wakeup-"))
    url = fresh_database(server, folder)
    try:
        player = Player(url, folder, level)
        process = scheduler(url, folder)
        try:
            player.new_game()
            player.my_turn()  # the scheduler is up and listening once it has answered
            samples: dict[bool, list[float]] = {False: [], True: []}
            while sum(len(v) for v in samples.values()) < 2 * moves:
                page = len(samples[True]) < len(samples[False])
                took = player.sample(page)
                if took is None:
                    if player.seat()["status"] != "in_progress":
                        player.new_game()
                    continue
                samples[page].append(took)
            print(f"{'PostgreSQL' if server else 'SQLite'}, level {level}, {player.games} games")
            report("the log", samples[False])
            report("the page", samples[True])
        finally:
            process.terminate()
            process.wait(10)
            player.env.db.dispose()
    finally:
        drop_database(server, url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres", default=os.environ.get("PBEM_TEST_DATABASE_URL"))
    parser.add_argument("--moves", type=int, default=60, help="moves measured each way")
    parser.add_argument("--level", default="normal", choices=("easy", "normal", "strong"))
    parser.add_argument("--sqlite-only", action="store_true")
    args = parser.parse_args()
    run(None, args.moves, args.level)
    if args.postgres and not args.sqlite_only:
        run(args.postgres, args.moves, args.level)


if __name__ == "__main__":
    main()
