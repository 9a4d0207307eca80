"""The yardstick of benchmarks/load.py: a bare Flask endpoint doing one INSERT and commit."""

from __future__ import annotations

import os

from flask import Flask
from sqlalchemy import text

from pbem.store.db import Database

db = Database(os.environ["PBEM_DATABASE_URL"])
with db.write() as session:
    session.execute(
        text(
            "CREATE TABLE IF NOT EXISTS bench_bare (id INTEGER PRIMARY KEY, note VARCHAR(40))"
            if db.url.startswith("sqlite")
            else "CREATE TABLE IF NOT EXISTS bench_bare (id SERIAL PRIMARY KEY, note VARCHAR(40))"
        )
    )

app = Flask(__name__)


@app.post("/insert")
def insert() -> tuple[str, int]:
    with db.write() as session:
        session.execute(text("INSERT INTO bench_bare (note) VALUES ('x')"))
    return "ok", 201
