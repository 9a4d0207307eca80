"""What grows with what: play whole games through the use cases, then print the cost of
a move by how long the game already is (replay cache on and off), and the rows and
bytes each table holds per game and per move (docs/scaling.md).

    .venv/bin/python -m benchmarks.storage --postgres postgresql+psycopg://postgres@127.0.0.1:5432/test

No HTTP: this measures the service layer and the database, which is what several
web nodes share; benchmarks/load.py measures the whole server.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from sqlalchemy import func, select, text

from benchmarks.load import new_game
from pbem.config import Config
from pbem.services.core import access
from pbem.services.core.env import Env
from pbem.services.core.replay_cache import ReplayCache
from pbem.services.play import moves
from pbem.services.records import game_records
from pbem.store import migrate
from pbem.store.models import Game as GameRow
from tests.databases import create_pg_database, drop_pg_database

TABLES = ("games", "seats", "moves", "access_log", "outbox")
BUCKETS = (1, 50, 100, 150, 200, 300)


def bucket(n: int) -> int:
    return max(b for b in BUCKETS if b <= n)


def play(env: Env, count: int) -> tuple[dict[int, list[float]], int]:
    """Play ``count`` games to the end; seconds per submission by log length, and moves."""
    by_length: dict[int, list[float]] = defaultdict(list)
    total = 0
    for i in range(count):
        game = new_game(env, i)
        for n, (seat, move) in enumerate(game.script, 1):
            started = time.perf_counter()
            moves.submit_move(env, game.tokens[seat], n, move, access.Client())
            by_length[bucket(n)].append(time.perf_counter() - started)
        total += len(game.script)
    return by_length, total


def sizes(env: Env) -> dict[str, tuple[int, int]]:
    """Rows and bytes (with indexes and TOAST) of each table."""
    out = {}
    with env.db.read() as session:
        session.execute(text("ANALYZE"))
        for table in TABLES:
            rows = session.scalar(select(func.count()).select_from(text(table)))
            size = session.scalar(text(f"SELECT pg_total_relation_size('{table}')"))
            out[table] = (rows or 0, size or 0)
    return out


def run(server_url: str, count: int, cache: bool) -> None:
    url = create_pg_database(server_url, prefix="pbem_scale")
    config = Config(
        env="testing", database_url=url, secret_key="scale", instance_path=Path(tempfile.mkdtemp())
    )
    env = Env.from_config(config)
    if not cache:
        env.cache = ReplayCache(0)
    try:
        migrate.upgrade(env.db.engine)
        by_length, total = play(env, count)
        label = "cache on" if cache else "cache off"
        print(f"\n{label}: {count} games, {total} moves ({total / count:.0f} per game)")
        print("  submit_move by moves already in the game: median / p90 (ms)")
        for b in BUCKETS:
            if by_length.get(b):
                times = sorted(by_length[b])
                p90 = times[int(len(times) * 0.9)]
                print(
                    f"    from move {b:>3}: {statistics.median(times) * 1e3:6.2f} / "
                    f"{p90 * 1e3:6.2f}  ({len(times)} moves)"
                )
        if not cache:
            return
        print("  storage (PostgreSQL, with indexes): rows, bytes per game, bytes per move")
        for table, (rows, size) in sizes(env).items():
            print(
                f"    {table:<11} {rows:>7} rows  {size / count:>9,.0f} B/game  "
                f"{size / total:>6,.0f} B/move"
            )
        with env.db.read() as session:
            game_ids = list(session.scalars(select(GameRow.public_id)))
        record = [len(json.dumps(game_records.operator_record(env, g))) for g in game_ids[:10]]
        print(f"  a finished game's record: {statistics.mean(record) / 1024:.1f} KiB of JSON")
    finally:
        env.db.dispose()
        drop_pg_database(server_url, url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=os.environ.get("PBEM_TEST_DATABASE_URL"))
    parser.add_argument("--games", type=int, default=30)
    args = parser.parse_args()
    if not args.postgres:
        parser.error("--postgres URL (or PBEM_TEST_DATABASE_URL) is needed")
    for cache in (True, False):
        run(args.postgres, args.games, cache)


if __name__ == "__main__":
    main()
