"""Load benchmark: moves per second and latencies of the real server under gunicorn.

Run: ``.venv/bin/python -m benchmarks.load [--postgres URL] [--seconds 15]``. For each
database (SQLite, and PostgreSQL when a server URL is given) and with the replay cache
on and off, it starts gunicorn (deploy/gunicorn.conf.py), plays games through the JSON
API from concurrent clients, and prints moves/s and p50/p99 of a move POST and of the
seat page; then the seat page as games grow long, and a bare Flask endpoint doing one
INSERT and commit on the same database, as the yardstick. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.databases import create_pg_database, drop_pg_database

ROOT = Path(__file__).resolve().parents[1]


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
    def __init__(
        self, url: str, folder: Path, workers: int, cache: bool, app: str | None = None
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        environ = {
            **os.environ,
            "PBEM_DATABASE_URL": url,
            "PBEM_ENV": "testing",
            "PBEM_SECRET_KEY": "load",
            "PBEM_INSTANCE_PATH": str(folder),
            "PBEM_BIND": f"127.0.0.1:{self.port}",
            "PBEM_WORKERS": str(workers),
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
        for _ in range(200):
            try:
                urllib.request.urlopen(self.base + ("/" if not app else "/nothing"), timeout=1)
                return
            except urllib.error.HTTPError:
                return  # it answers
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.05)
        raise SystemExit("gunicorn did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(20)


def request(base: str, path: str, token: str = "", body: object = None) -> tuple[int, object]:
    req = urllib.request.Request(
        base + path,
        method="POST" if body is not None else "GET",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            data = r.read()
            return r.status, json.loads(
                data
            ) if r.headers.get_content_type() == "application/json" else None
    except urllib.error.HTTPError as exc:
        return exc.code, None


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] * 1000


def make_games(url: str, count: int) -> list[tuple[str, tuple[str, str], int]]:
    os.environ.setdefault("PBEM_SECRET_KEY", "load")
    from pbem.config import Config
    from pbem.services import games
    from pbem.services.env import Env
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
    out = []
    for i in range(count):
        created = games.create_game(
            env,
            (
                games.PlayerIn(f"A{i}", f"a{i}@load.test"),
                games.PlayerIn(f"B{i}", f"b{i}@load.test"),
            ),
        )
        first = games.public_page(env, created.public_id).view.table.to_move
        out.append((created.public_id, created.tokens, first))
    env.db.dispose()
    return out


def play_load(base: str, games_: list, seconds: float, clients: int) -> dict[str, float]:
    """Clients play their games move after move (GET legal moves, POST the move)."""
    posts: list[float] = []
    lock = threading.Lock()
    end = time.time() + seconds
    state = {g[0]: {"n": 1, "to_move": g[2]} for g in games_}

    def client(mine: list) -> None:
        rnd = random.Random(len(mine))
        while time.time() < end and mine:
            game = rnd.choice(mine)
            public_id, tokens, _ = game
            s = state[public_id]
            token = tokens[s["to_move"]]
            _, legal = request(base, "/api/seat/legal-moves", token)
            moves = (legal or {}).get("moves") or []
            if not moves:
                mine.remove(game)
                continue
            t0 = time.perf_counter()
            status, done = request(
                base, "/api/seat/moves", token, {"n": s["n"], "move": rnd.choice(moves)}
            )
            elapsed = time.perf_counter() - t0
            if status == 201 and isinstance(done, dict):
                with lock:
                    posts.append(elapsed)
                s["n"] += 1
                if done.get("to_move") is None:
                    mine.remove(game)
                else:
                    s["to_move"] = done["to_move"]

    groups = [games_[i::clients] for i in range(clients)]
    threads = [threading.Thread(target=client, args=(list(g),)) for g in groups]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.time() - t0
    return {
        "moves_per_s": len(posts) / wall,
        "post_p50": pct(posts, 50),
        "post_p99": pct(posts, 99),
        "moves": len(posts),
    }, state


def seat_pages(base: str, tokens: list[str], count: int, clients: int) -> dict[str, float]:
    times: list[float] = []
    lock = threading.Lock()

    def worker(k: int) -> None:
        rnd = random.Random(k)
        for _ in range(count // clients):
            t0 = time.perf_counter()
            urllib.request.urlopen(f"{base}/s/{rnd.choice(tokens)}", timeout=30).read()
            with lock:
                times.append(time.perf_counter() - t0)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {
        "pages_per_s": len(times) / (time.time() - t0),
        "page_p50": pct(times, 50),
        "page_p99": pct(times, 99),
    }


def bare(url: str, folder: Path, workers: int, seconds: float, clients: int) -> float:
    server = Server(url, folder, workers, True, app="benchmarks.bare_app:app")
    count = 0
    lock = threading.Lock()
    end = time.time() + seconds

    def worker() -> None:
        nonlocal count
        while time.time() < end:
            req = urllib.request.Request(server.base + "/insert", method="POST", data=b"")
            urllib.request.urlopen(req, timeout=30).read()
            with lock:
                count += 1

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    server.stop()
    return count / seconds


def run(label: str, server_url: str | None, args: argparse.Namespace) -> None:
    for cache in (True, False):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            url = fresh_database(server_url, folder)
            try:
                games_ = make_games(url, args.games)
                server = Server(url, folder, args.workers, cache)
                try:
                    load, state = play_load(server.base, games_, args.seconds, args.clients)
                    tokens = [t for _, pair, _ in games_ for t in pair]
                    pages = seat_pages(server.base, tokens, 400, args.clients)
                finally:
                    server.stop()
                print(
                    f"{label:<10} cache {'on ' if cache else 'off'}  "
                    f"{load['moves_per_s']:6.1f} moves/s  POST p50 {load['post_p50']:5.1f} ms "
                    f"p99 {load['post_p99']:6.1f} ms | seat page p50 {pages['page_p50']:5.1f} ms"
                    f" p99 {pages['page_p99']:6.1f} ms  ({load['moves']} moves, games now "
                    f"{statistics.mean(s['n'] - 1 for s in state.values()):.0f} moves long)",
                    flush=True,
                )
                if cache:
                    yardstick = bare(url, folder, args.workers, 5, args.clients)
                    print(
                        f"{label:<10} bare INSERT+commit endpoint: {yardstick:6.1f} req/s "
                        f"(a move is {yardstick / max(load['moves_per_s'], 0.1):.1f}× its cost, "
                        "counting the legal-moves GET each move takes)",
                        flush=True,
                    )
            finally:
                drop_database(server_url, url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres", default=os.environ.get("PBEM_TEST_DATABASE_URL"))
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    print(
        f"gunicorn {args.workers} workers × 4 threads, {args.clients} clients, "
        f"{args.games} games, {args.seconds:g} s per run"
    )
    run("SQLite", None, args)
    if args.postgres:
        run("PostgreSQL", args.postgres, args)


if __name__ == "__main__":
    main()
