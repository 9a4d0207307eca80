"""Fixtures: a database of the run's own (SQLite, or PostgreSQL when PBEM_TEST_DATABASE_URL
is set), an Env on a frozen clock, the Flask app and its test client.

One database serves the whole run and is migrated once: every test makes its own
games, so tests never see each other's rows. Tests that need an empty database
(migrations, tampering) ask ``fresh_database`` for one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pbem.clock import FrozenClock
from pbem.config import Config
from pbem.services.env import Env
from pbem.store import migrate
from pbem.store.db import Database
from tests.databases import create_pg_database, drop_pg_database

SERVER_URL = os.environ.get("PBEM_TEST_DATABASE_URL", "")


@pytest.fixture(scope="session")
def fresh_database(tmp_path_factory) -> Iterator[Callable[[], str]]:
    """A factory of empty databases of the run's kind; all are dropped at the end."""
    made: list[str] = []

    def make() -> str:
        if SERVER_URL:
            url = create_pg_database(SERVER_URL)
        else:
            url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'pbem.sqlite3'}"
        made.append(url)
        return url

    yield make
    if SERVER_URL:
        for url in made:
            drop_pg_database(SERVER_URL, url)


@pytest.fixture(scope="session")
def database_url(fresh_database) -> str:
    url = fresh_database()
    db = Database(url)
    migrate.upgrade(db.engine)
    db.dispose()
    return url


@pytest.fixture(scope="session")
def database(database_url) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


@pytest.fixture
def config(database_url, tmp_path: Path) -> Config:
    return Config(
        env="testing",
        instance_path=tmp_path,
        database_url=database_url,
        secret_key="test-secret-key",
        base_url="http://pbem.test",
    )


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def env(config, database, clock) -> Env:
    from pbem.services import ratelimit

    env = Env(config=config, db=database, clock=clock)
    ratelimit.forget_all(env)  # every test starts at the same frozen time: fresh windows
    return env


@pytest.fixture
def app(env):
    from pbem.web import create_app

    app = create_app(env=env)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def client(app):
    return app.test_client()


def pytest_report_header(config) -> str:
    return f"pbem database: {'PostgreSQL ' + SERVER_URL if SERVER_URL else 'SQLite'}"
