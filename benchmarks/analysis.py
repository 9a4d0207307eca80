"""How soon a finished match's analysis is visible, and how long the whole of it takes
(issue 36, "analysis in seconds").

    .venv/bin/python -m benchmarks.analysis [--postgres URL] [--moves 150] [--workers N]

A match between two people is played through the use cases on a fresh database (greedy
moves mostly, some random ones, as people play; no move that ends it), up to
``--moves`` − 1 moves; then a real ``pbem scheduler`` process is started (its defaults:
``PBEM_ANALYSIS_WORKERS`` one a core unless ``--workers``), and once it has had time to
listen, the player to move resigns: the ``--moves``-th move ends the match. Timed from
that move, with ``GET /api/games/<id>/analysis`` (the replay page's figures) asked every
50 ms: **the first verdicts** (the progress above 0) and **the whole analysis** (status
``done``). Prints both and the machine's load averages before and after (the figures
are wall-clock: other work on the cores stretches them), and the CPU seconds the
scheduler and its workers spent meanwhile (Linux), which the load does not stretch.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.load import drop_database, fresh_database

ROOT = Path(__file__).resolve().parents[1]


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


class Match:
    """A game of two people, driven through the use cases."""

    def __init__(self, url: str, folder: Path) -> None:
        from benchmarks.testing_app import testing_app

        self.app, self.env, self.client = testing_app(url, folder, "analysis")

    def play(self, moves: int, seed: int) -> tuple[str, str, int] | None:
        """A game ``moves`` − 1 moves long that has not ended: (public id, the mover's
        token, the next move's number); None if every move would end it sooner."""
        from pbem.ai.policies import greedy_move
        from pbem.services.core import access
        from pbem.services.core.lookup import game_row, log_rows
        from pbem.services.play import game_pages, new_games
        from pbem.services.play import moves as use
        from pbem.services.records.replay_frames import from_game

        rnd = random.Random(seed)
        created = new_games.create_game(
            self.env,
            (
                new_games.PlayerIn("Ada", f"ada{seed}@example.test", "en", "UTC"),
                new_games.PlayerIn("Bo", f"bo{seed}@example.test", "en", "UTC"),
            ),
            first_player=0,
        )
        tokens = game_pages.seat_tokens(self.env, created.public_id)
        for n in range(1, moves):
            with self.env.db.read() as session:
                game = game_row(session, created.public_id)
                match = from_game(game, log_rows(session, game)).states[-1]
            legal = [m for m in match.legal_moves() if not match.apply(m).is_over]
            if not legal or match.to_move is None:
                return None
            move = greedy_move(match.round, legal) if rnd.random() < 0.7 else rnd.choice(legal)
            token = tokens[match.to_move]
            use.submit_move(self.env, token, n, str(move), access.Client())
        return created.public_id, tokens[match.apply(move).to_move or 0], moves

    def analysis(self, public_id: str) -> dict:
        return self.client.get(f"/api/games/{public_id}/analysis").get_json()


def scheduler(url: str, folder: Path, workers: int | None) -> subprocess.Popen:
    environ = {
        **os.environ,
        "PBEM_DATABASE_URL": url,
        "PBEM_ENV": "testing",
        "PBEM_SECRET_KEY": "analysis",
        "PBEM_INSTANCE_PATH": str(folder),
        "PBEM_MAIL_BACKEND": "file",
    }
    if workers is not None:
        environ["PBEM_ANALYSIS_WORKERS"] = str(workers)
    return subprocess.Popen(
        [sys.executable, "-m", "pbem", "scheduler"],
        env=environ,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=open(folder / "scheduler.log", "w"),  # the process's
    )


def _ticks(pid: int) -> int:
    """A process's user and system CPU ticks (Linux's /proc/<pid>/stat; 0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def _children(pid: int) -> set[int]:
    """Every descendant (the pool's workers are the children of a fork server)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            continue
    for child in list(found):
        found |= _children(child)
    return found


class Cpu:
    """The CPU seconds of a process and of its children (the analysis's pool), the children
    read while they live (``look`` often: the last reading of each is what counts)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.start = _ticks(pid)
        self.children: dict[int, int] = {c: _ticks(c) for c in _children(pid)}
        self.before = dict(self.children)

    def look(self) -> None:
        for child in _children(self.pid):
            self.children[child] = max(self.children.get(child, 0), _ticks(child))

    def seconds(self) -> float:
        spent = _ticks(self.pid) - self.start
        spent += sum(t - self.before.get(c, 0) for c, t in self.children.items())
        return spent / os.sysconf("SC_CLK_TCK")


def run(server: str | None, moves: int, workers: int | None) -> None:
    from pbem.services.core import access
    from pbem.services.play import moves as use

    folder = Path(tempfile.mkdtemp(prefix="pbem-analysis-"))
    url = fresh_database(server, folder)
    try:
        match = Match(url, folder)
        played = None
        seed = 0
        while played is None:
            seed += 1
            played = match.play(moves, seed)
        public_id, token, n = played
        process = scheduler(url, folder, workers)
        try:
            time.sleep(5)  # its first runs done, its wake-up listening
            print(f"{'PostgreSQL' if server else 'SQLite'}, before: {_load()}", flush=True)
            cpu = Cpu(process.pid)
            started = time.perf_counter()
            use.submit_move(match.env, token, n, "resign", access.Client())
            first = None
            while True:
                shown = match.analysis(public_id)
                cpu.look()
                took = time.perf_counter() - started
                if first is None and shown["progress"]:
                    first = took
                    print(f"first verdicts ({shown['progress']} moves): {first:.1f} s", flush=True)
                if shown["status"] == "done":
                    break
                if took > 600:
                    raise RuntimeError("no analysis within 10 minutes: see scheduler.log")
                time.sleep(0.05)
            print(
                f"the whole analysis of a {shown['total']}-move match "
                f"({workers or os.cpu_count()} workers): {took:.1f} s; after: {_load()}",
                flush=True,
            )
            print(f"CPU of the scheduler and its workers meanwhile: {cpu.seconds():.1f} s")
        finally:
            process.terminate()
            process.wait(10)
            match.env.db.dispose()
    finally:
        drop_database(server, url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres", default=os.environ.get("PBEM_TEST_DATABASE_URL"))
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--workers", type=int, default=None, help="PBEM_ANALYSIS_WORKERS")
    parser.add_argument("--sqlite-only", action="store_true")
    args = parser.parse_args()
    run(None, args.moves, args.workers)
    if args.postgres and not args.sqlite_only:
        run(args.postgres, args.moves, args.workers)


if __name__ == "__main__":
    main()
