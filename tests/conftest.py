"""Fixtures: a database of the run's own (SQLite, or PostgreSQL when PBEM_TEST_DATABASE_URL
is set), an Env on a frozen clock, the Flask app and its test client.

One database serves the whole run and is migrated once: every test makes its own
games, so tests never see each other's rows. Tests that need an empty database
(migrations, tampering) ask ``fresh_database`` for one.

The server's modules (store, services, web) are imported inside the fixtures, so the
engine's tests (``tests/engine``) run where only the engine's dependencies, pytest and
hypothesis are installed (``tests/test_engine_alone.py`` keeps it so).

This file only wires fixtures and hooks; what they and the tests share is the plain module
``tests/support.py`` (pytest advises against importing a conftest).

Under CI (``CI`` set, as ``.ci/run`` does) hypothesis runs derandomized: the same
examples every run, and a failure prints the blob that reproduces it. In the quick loop
(``-m "not slow"``) each property runs a quarter of its examples (at least 10); the full
run runs all of them.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from tests.support import SERVER_URL, fewer_examples, opened_database, serving

if TYPE_CHECKING:
    from pbem.clock import FrozenClock
    from pbem.config import Config
    from pbem.services.core.env import Env
    from pbem.store.db import Database

settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def fresh_database(tmp_path_factory) -> Iterator[Callable[..., str]]:
    """A factory of databases of the run's kind, empty or a copy of the database at
    ``copy_of`` (a URL), which nobody may be connected to; all are dropped at the end."""
    from sqlalchemy.engine import make_url

    from tests.databases import create_pg_database, dispose_engines_on, drop_pg_database

    made: list[str] = []

    def make(copy_of: str = "") -> str:
        if SERVER_URL:
            template = str(make_url(copy_of).database) if copy_of else ""
            url = create_pg_database(SERVER_URL, template=template)
        else:
            path = tmp_path_factory.mktemp("db") / "pbem.sqlite3"
            if copy_of:
                source = sqlite3.connect(str(make_url(copy_of).database))
                with closing(source), closing(sqlite3.connect(path)) as copy:
                    source.backup(copy)  # the whole database, whatever its WAL still holds
            url = f"sqlite:///{path}"
        made.append(url)
        return url

    yield make
    if SERVER_URL:
        dispose_engines_on(made)
        for url in made:
            drop_pg_database(SERVER_URL, url)


@pytest.fixture(scope="session")
def migrated_database(fresh_database) -> Callable[[], str]:
    """A factory of new databases at the latest migration; each returns its URL. The
    migrations run once, into a template, and every database is a copy of it (SQLite's backup
    API on SQLite, ``CREATE DATABASE ... TEMPLATE`` on PostgreSQL): running them for each
    database was a large part of the quick loop. Modules that need a database of their own
    override ``database_url`` with one of these."""
    from pbem.store import migrate
    from pbem.store.db import Database

    template = fresh_database()
    db = Database(template)
    migrate.upgrade(db.engine)
    db.dispose()  # nobody may be connected to a template; SQLite's WAL is written back
    return lambda: fresh_database(copy_of=template)


@pytest.fixture(scope="session")
def database_url(migrated_database) -> str:
    return migrated_database()


@pytest.fixture(scope="session")
def database(database_url) -> Iterator[Database]:
    yield from opened_database(database_url)


@pytest.fixture
def config(database_url, tmp_path: Path) -> Config:
    from pbem.config import Config

    return Config(
        env="testing",
        instance_path=tmp_path,
        database_url=database_url,
        secret_key="test-secret-key",
        base_url="http://pbem.test",
    )


@pytest.fixture(scope="module")
def module_env(database_url, database, tmp_path_factory) -> Env:
    """An env like ``env``'s (its own frozen clock at the same moment, the same secret),
    for a module's fixture that makes once what the module's tests only read: a finished
    game to replay, audit and export, say."""
    from pbem.clock import FrozenClock
    from pbem.config import Config
    from pbem.services.core.env import Env

    config = Config(
        env="testing",
        instance_path=tmp_path_factory.mktemp("module-instance"),
        database_url=database_url,
        secret_key="test-secret-key",
        base_url="http://pbem.test",
    )
    return Env(config=config, db=database, clock=FrozenClock())


@pytest.fixture
def clock() -> FrozenClock:
    from pbem.clock import FrozenClock

    return FrozenClock()


@pytest.fixture
def env(config, database, clock) -> Env:
    from pbem.services.core import limits
    from pbem.services.core.env import Env

    env = Env(config=config, db=database, clock=clock)
    limits.forget_all(env)  # every test starts at the same frozen time: fresh windows
    return env


@pytest.fixture
def app(env, template_code):
    from pbem.web import create_app

    app = create_app(env=env)
    app.config["TESTING"] = True
    app.jinja_env.bytecode_cache = template_code
    return app


@pytest.fixture(scope="session")
def template_code():
    """The compiled pages, shared by the apps of the run's tests: each test's app is new, and
    compiling its pages again was most of a short web test's time. A page is compiled anew
    when its source or anything of its environment that compiling reads differs."""
    from jinja2.bccache import Bucket, BytecodeCache

    class Shared(BytecodeCache):
        def __init__(self) -> None:
            self.code: dict[str, bytes] = {}

        def get_bucket(self, environment, name, filename, source) -> Bucket:
            escape = environment.autoescape
            options = (
                name,
                filename,
                escape(name) if callable(escape) else escape,
                environment.trim_blocks,
                environment.lstrip_blocks,
                environment.keep_trailing_newline,
                environment.newline_sequence,
                environment.optimized,
                environment.is_async,
                environment.finalize is None,
                environment.block_start_string,
                environment.block_end_string,
                environment.variable_start_string,
                environment.variable_end_string,
                environment.comment_start_string,
                environment.comment_end_string,
                environment.line_statement_prefix,
                environment.line_comment_prefix,
                tuple(sorted(environment.extensions)),
                tuple(sorted(environment.filters)),
                tuple(sorted(environment.tests)),
            )
            bucket = Bucket(environment, repr(options), self.get_source_checksum(source))
            self.load_bytecode(bucket)
            return bucket

        def load_bytecode(self, bucket: Bucket) -> None:
            if bucket.key in self.code:
                bucket.bytecode_from_string(self.code[bucket.key])

        def dump_bytecode(self, bucket: Bucket) -> None:
            self.code[bucket.key] = bucket.bytecode_to_string()

    return Shared()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def live_server(app, env) -> Iterator[str]:
    """The app served over HTTP on a free loopback port; its base URL (the env's links too)."""
    yield from serving(app, env)


TESTS = Path(__file__).resolve().parent
# every test under these folders carries these markers, whatever its module says
FOLDER_MARKERS = {
    TESTS / "browser": ("browser", "slow"),
    TESTS / "reliability": ("reliability", "slow"),
}


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for folder, names in FOLDER_MARKERS.items():
            if item.path.is_relative_to(folder):
                for name in names:
                    if item.get_closest_marker(name) is None:
                        item.add_marker(name)
    if "not slow" in (config.option.markexpr or ""):
        fewer_examples(items)


def pytest_report_header(config) -> str:
    return f"pbem database: {'PostgreSQL ' + SERVER_URL if SERVER_URL else 'SQLite'}"
