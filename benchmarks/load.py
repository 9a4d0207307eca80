"""Load benchmark: move submissions per second and latencies of the real server under gunicorn.

Run: ``.venv/bin/python -m benchmarks.load [--postgres URL] [--seconds 15]``. Prints
figures; asserts nothing. For each database (SQLite, and PostgreSQL when a server URL
is given) and with the replay cache on and off, it starts gunicorn with
deploy/gunicorn.conf.py and runs two kinds of client at once, each on a kept-alive
connection as nginx's upstream pool keeps them (deploy/nginx-pbem.conf):

- *bots* play their games as fast as the server answers. Each bot keeps a replica of
  its games (the harness made them, so it knows their seeds) and chooses its moves
  from it, so every request a bot makes is one move POST: moves/s counts
  submissions, not the GETs a bot would need to learn the position.
- *readers* open seat pages at a steady rate meanwhile, as players following their
  games do, so the seat page's p50/p99 is measured under the move load; the same is
  reported per length of the game's log, since a page shows the whole log.

Beside it, the yardstick: a bare Flask endpoint doing one INSERT and commit under the
same gunicorn and the same clients.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.engine import Match
from tests.databases import create_pg_database, drop_pg_database

if TYPE_CHECKING:
    from pbem.services.core.env import Env

ROOT = Path(__file__).resolve().parents[1]
LENGTHS = ((0, 50), (50, 100), (100, 150), (150, 10_000))  # buckets of log length


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fresh_database(server_url: str | None, folder: Path) -> str:
    if server_url is None:
        return f"sqlite:///{folder / 'load.sqlite3'}"
    return create_pg_database(server_url, prefix="pbem_load")


def drop_database(server_url: str | None, url: str) -> None:
    if server_url is not None:
        drop_pg_database(server_url, url)


class Server:
    """gunicorn with the deploy config, on a free port, on the given database."""

    def __init__(
        self,
        url: str,
        folder: Path,
        workers: int,
        threads: int,
        cache: bool,
        app: str | None = None,
    ) -> None:
        self.port = free_port()
        environ = {
            **os.environ,
            "PBEM_DATABASE_URL": url,
            "PBEM_ENV": "testing",
            "PBEM_SECRET_KEY": "load",
            "PBEM_INSTANCE_PATH": str(folder),
            "PBEM_BIND": f"127.0.0.1:{self.port}",
            "PBEM_WORKERS": str(workers),
            "PBEM_THREADS": str(threads),
            "PBEM_ACCESS_LOG": os.devnull,
            "PBEM_REPLAY_CACHE": "512" if cache else "0",
            "PYTHONPATH": str(ROOT),
        }
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            str(ROOT / "deploy" / "gunicorn.conf.py"),
        ]
        if app:
            command.append(app)
        self.proc = subprocess.Popen(
            command, env=environ, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        for _ in range(400):
            try:
                Client(self.port).request("GET", "/nothing")
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("gunicorn did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(20)


class Client:
    """One kept-alive HTTP connection (reopened if the server closes it)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: http.client.HTTPConnection | None = None

    def request(
        self, method: str, path: str, token: str = "", body: object = None
    ) -> tuple[int, bytes]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            try:
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                return response.status, response.read()
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = None  # a closed keep-alive connection: open a new one once
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


@dataclass
class Game:
    """A game as a bot plays it: its tokens, and its moves chosen before the clock starts.

    Choosing a move (the engine's legal moves of a replica) costs a client as much
    CPU as a third of a move's request, on the same two cores as the server; a
    real player's client runs elsewhere, so the choice is made beforehand.
    """

    public_id: str
    tokens: tuple[str, str]
    script: list[tuple[int, str]]  # (seat, move) of moves 1, 2, … to the game's end
    n: int = 1  # the next move's number

    @property
    def over(self) -> bool:
        return self.n > len(self.script)

    @property
    def next(self) -> tuple[int, str]:
        """The seat to move and its move."""
        return self.script[self.n - 1]


def played_out(match: Match, rnd: random.Random) -> list[tuple[int, str]]:
    """Random legal moves from ``match`` to the end of the game."""
    script = []
    while not match.is_over:
        seat = match.to_move
        assert seat is not None
        move = rnd.choice(match.legal_moves())
        script.append((seat, str(move)))
        match = match.apply(move, seat)
    return script


def make_games(url: str, count: int) -> list[Game]:
    os.environ.setdefault("PBEM_SECRET_KEY", "load")

    from pbem.config import Config
    from pbem.services.core.env import Env
    from pbem.store import migrate

    env = Env.from_config(
        Config(
            env="testing",
            database_url=url,
            secret_key="load",
            instance_path=Path(tempfile.mkdtemp()),
        )
    )
    migrate.upgrade(env.db.engine)
    out = [new_game(env, i) for i in range(count)]
    env.db.dispose()
    return out


def new_game(env: Env, i: int) -> Game:
    """Create game ``i`` through the use case, and choose its moves from a replica."""
    from sqlalchemy import select

    from pbem.services.play import new_games
    from pbem.store.models import Game as GameRow

    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn(f"A{i}", f"a{i}@load.test"),
            new_games.PlayerIn(f"B{i}", f"b{i}@load.test"),
        ),
    )
    with env.db.read() as session:
        seed, first = session.execute(
            select(GameRow.seed, GameRow.first_player).where(GameRow.public_id == created.public_id)
        ).one()
    script = played_out(Match.new(bytes.fromhex(seed), first), random.Random(i))
    return Game(created.public_id, created.tokens, script)


@dataclass
class Figures:
    posts: list[float] = field(default_factory=list)
    pages: list[tuple[int, float]] = field(default_factory=list)  # (log length, seconds)
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, compare=False)

    def merge(self, other: Figures) -> None:
        self.posts += other.posts
        self.pages += other.pages
        self.refused += other.refused

    def __getstate__(self) -> dict[str, object]:  # sent back from a client process
        return {"posts": self.posts, "pages": self.pages, "refused": self.refused}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state, lock=threading.Lock())


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] * 1000


#: How far each game has got (its next move's number), shared by the client processes:
#: bots write their own games' entries, readers read them to bucket pages by log length.
Progress = Any


def bot(
    port: int,
    mine: list[tuple[int, Game]],
    progress: Progress,
    end: float,
    seed: int,
    rate: float | None,
    figures: Figures,
) -> None:
    """Play these games until time is up or they are over: as fast as the server answers,
    or paced at ``rate`` moves per second (a schedule kept whatever the answers take)."""
    rnd = random.Random(seed)
    client = Client(port)
    live = [(i, g) for i, g in mine if not g.over]
    due = time.time() + (rnd.random() / rate if rate else 0)  # bots out of step, not in bursts
    while live and time.time() < end:
        if rate:
            time.sleep(max(0.0, due - time.time()))
            due += 1 / rate
        i, game = rnd.choice(live)
        seat, move = game.next
        t0 = time.perf_counter()
        status, _ = client.request(
            "POST", "/api/seat/moves", game.tokens[seat], {"n": game.n, "move": move}
        )
        elapsed = time.perf_counter() - t0
        if status != 201:
            with figures.lock:
                figures.refused += 1
            continue
        game.n += 1
        progress[i] = game.n
        with figures.lock:
            figures.posts.append(elapsed)
        if game.over:
            live.remove((i, game))


def reader(
    port: int,
    games_: list[Game],
    progress: Progress,
    end: float,
    rate: float,
    seed: int,
    figures: Figures,
) -> None:
    """Open seat pages at ``rate`` per second (paced, not as fast as possible)."""
    rnd = random.Random(seed)
    client = Client(port)
    due = time.time() + rnd.random() / rate  # readers out of step with each other
    while due < end:
        time.sleep(max(0.0, due - time.time()))
        i = rnd.randrange(len(games_))
        length = progress[i] - 1
        t0 = time.perf_counter()
        status, _ = client.request("GET", f"/s/{rnd.choice(games_[i].tokens)}")
        elapsed = time.perf_counter() - t0
        if status == 200:
            with figures.lock:
                figures.pages.append((length, elapsed))
        due += 1 / rate


def clients(targets: list[tuple[Callable[..., None], tuple[object, ...]]], out: Any) -> None:
    """One client process: its clients as threads, their figures sent back when done."""
    figures = Figures()
    threads = [threading.Thread(target=f, args=(*a, figures)) for f, a in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(figures)


def run_load(
    port: int, games_: list[Game], args: argparse.Namespace, seconds: float
) -> tuple[Figures, float]:
    """The bots and the readers for ``seconds``, in client processes of their own.

    Clients sharing one interpreter queue on its lock: a reader's page, answered,
    waits until a bot thread lets go, and that wait was counted in the page's latency.
    So the readers get a process to themselves and the bots are spread over
    ``args.client_processes`` more, as players' browsers do not share a lock at all.
    """
    context = multiprocessing.get_context("fork")
    progress = context.Array("i", [g.n for g in games_], lock=False)
    end = time.time() + seconds
    mine = [[(j, games_[j]) for j in range(i, len(games_), args.bots)] for i in range(args.bots)]
    rate = args.rate and args.rate / args.bots
    processes = args.client_processes
    groups: list[list[tuple[Callable[..., None], tuple[object, ...]]]] = [
        [(bot, (port, mine[i], progress, end, i, rate)) for i in range(k, args.bots, processes)]
        for k in range(processes)
    ]
    per_reader = args.pages / args.readers
    groups.append(
        [(reader, (port, games_, progress, end, per_reader, 100 + i)) for i in range(args.readers)]
    )
    out = context.Queue()
    t0 = time.time()
    started = [context.Process(target=clients, args=(group, out)) for group in groups]
    for p in started:
        p.start()
    figures = Figures()
    for _ in started:
        figures.merge(out.get())
    for p in started:
        p.join()
    wall = time.time() - t0
    for j, game in enumerate(games_):
        game.n = progress[j]
    return figures, wall


def bare(url: str, folder: Path, args: argparse.Namespace) -> float:
    """Requests per second of the yardstick, counted after the same warm-up as the app's
    (a run counted from the first request measured some workers still booting)."""
    from benchmarks.bare_app import create_table

    create_table(url)
    server = Server(url, folder, args.workers, args.threads, True, app="benchmarks.bare_app:app")
    count = 0
    lock = threading.Lock()
    start = time.time() + args.warmup
    end = start + 5

    def worker() -> None:
        nonlocal count
        client = Client(server.port)
        while time.time() < end:
            client.request("POST", "/insert", body={})
            if time.time() >= start:
                with lock:
                    count += 1

    threads = [threading.Thread(target=worker) for _ in range(args.bots)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if server.proc.poll() is not None:
        raise SystemExit(f"the bare endpoint's gunicorn stopped (exit {server.proc.returncode})")
    server.stop()
    return count / 5


def report(label: str, cache: bool, figures: Figures, wall: float, games_: list[Game]) -> float:
    moves = len(figures.posts) / wall
    pages = [s for _, s in figures.pages]
    print(
        f"{label:<10} cache {'on ' if cache else 'off'}  {moves:6.1f} moves/s  "
        f"POST p50 {pct(figures.posts, 50):5.1f} p99 {pct(figures.posts, 99):6.1f} ms | "
        f"seat page under load p50 {pct(pages, 50):5.1f} p99 {pct(pages, 99):6.1f} ms "
        f"({len(pages) / wall:.0f}/s) | {figures.refused} refused, games now "
        f"{statistics.mean(g.n - 1 for g in games_):.0f} moves long on average",
        flush=True,
    )
    buckets = []
    for low, high in LENGTHS:
        times = [s for n, s in figures.pages if low <= n < high]
        if times:
            buckets.append(
                f"{low}-{high if high < 10_000 else ''} moves: p50 {pct(times, 50):.1f} "
                f"p99 {pct(times, 99):.1f} ms ({len(times)})"
            )
    print(f"{'':<10} seat page by log length: " + "; ".join(buckets), flush=True)
    return moves


def run(label: str, server_url: str | None, args: argparse.Namespace) -> None:
    for cache in {"on": (True,), "off": (False,), "both": (True, False)}[args.cache]:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            url = fresh_database(server_url, folder)
            try:
                games_ = make_games(url, args.games)
                server = Server(url, folder, args.workers, args.threads, cache)
                try:
                    if args.warmup:  # fresh workers: connections, prepared statements, templates
                        run_load(server.port, games_, args, args.warmup)
                    figures, wall = run_load(server.port, games_, args, args.seconds)
                finally:
                    server.stop()
                moves = report(label, cache, figures, wall, games_)
                if cache:
                    yardstick = bare(url, folder, args)
                    print(
                        f"{label:<10} bare INSERT+commit endpoint: {yardstick:6.1f} req/s; "
                        f"a move costs {yardstick / max(moves, 0.1):.1f}× that, while "
                        f"{args.pages:g} seat pages/s are served beside it",
                        flush=True,
                    )
            finally:
                drop_database(server_url, url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres", default=os.environ.get("PBEM_TEST_DATABASE_URL"))
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument(
        "--warmup", type=float, default=3, help="seconds of the same load first, not counted"
    )
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--bots", type=int, default=12, help="clients submitting moves")
    parser.add_argument(
        "--rate", type=float, help="moves per second the bots aim for (default: as fast as served)"
    )
    parser.add_argument(
        "--client-processes", type=int, default=2, help="processes the bots are spread over"
    )
    parser.add_argument("--readers", type=int, default=4, help="clients opening seat pages")
    parser.add_argument("--pages", type=float, default=30, help="seat pages per second in all")
    parser.add_argument("--sqlite", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--cache", choices=("on", "off", "both"), default="both")
    args = parser.parse_args()
    print(
        f"gunicorn {args.workers} workers × {args.threads} threads; {args.bots} bots on "
        f"{args.games} games{f' at {args.rate:g} moves/s' if args.rate else ', flat out'}, "
        f"{args.readers} readers at {args.pages:g} seat pages/s; "
        f"{args.seconds:g} s per run; {os.cpu_count()} cores shared by all"
    )
    if args.sqlite:
        run("SQLite", None, args)
    if args.postgres:
        run("PostgreSQL", args.postgres, args)


if __name__ == "__main__":
    main()
