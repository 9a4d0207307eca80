"""The yardstick of benchmarks/load.py: a bare Flask endpoint doing one INSERT and commit.

Its table is made by load.py before gunicorn starts, not here in each worker: two
workers running ``CREATE TABLE IF NOT EXISTS`` at once on PostgreSQL can both try to
create it, and a worker that fails to boot stops gunicorn's master (the clients then
saw "connection refused").
"""

from __future__ import annotations

import functools
import os

from flask import Flask
from sqlalchemy import text

from pbem.store.db import Database, is_sqlite


def create_table(url: str) -> None:
    db = Database(url)
    key = "INTEGER PRIMARY KEY" if is_sqlite(url) else "SERIAL PRIMARY KEY"
    try:
        with db.write() as session:
            session.execute(
                text(f"CREATE TABLE IF NOT EXISTS bench_bare (id {key}, note VARCHAR(40))")
            )
    finally:
        db.dispose()


@functools.cache
def database() -> Database:
    """The workers' database, made on first use: load.py imports this module too."""
    return Database(os.environ["PBEM_DATABASE_URL"])


app = Flask(__name__)


@app.post("/insert")
def insert() -> tuple[str, int]:
    with database().write() as session:
        session.execute(text("INSERT INTO bench_bare (note) VALUES ('x')"))
    return "ok", 201
