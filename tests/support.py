"""What the tests and their fixtures share: a database of one's own, a random playout,
a live server, the quick loop's fewer examples. A plain module, so tests import it (pytest
advises against importing a conftest; ``tests/conftest.py`` only wires fixtures).

The root conftest imports this module, and the engine's tests run where no server library
is installed (``tests/test_engine_alone.py``): the server's modules are imported inside the
functions that use them, never at the top.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from pbem.services.core.env import Env
    from pbem.store.db import Database

#: The PostgreSQL server the run's databases are made on; empty: SQLite files.
SERVER_URL = os.environ.get("PBEM_TEST_DATABASE_URL", "")

QUICK_SHARE = 4  # the quick loop runs 1/QUICK_SHARE of a property's examples
QUICK_LEAST = 10


def opened_database(url: str) -> Iterator[Database]:
    """The database at ``url``, opened for a fixture's scope and disposed after it."""
    from pbem.store.db import Database

    db = Database(url)
    yield db
    db.dispose()


def own_database(scope: str) -> tuple[Any, Any]:
    """``database_url, database = own_database("module")`` in a test module (or conftest)
    gives it a database of its own for that scope, a copy of the migrated template,
    instead of the run's shared one: for tests whose jobs look at every game there."""

    @pytest.fixture(scope=scope)
    def database_url(migrated_database) -> str:
        return migrated_database()

    @pytest.fixture(scope=scope)
    def database(database_url) -> Iterator[Database]:
        yield from opened_database(database_url)

    return database_url, database


def serving(app: Any, env: Env) -> Iterator[str]:
    """``app`` served on a free loopback port while the caller's fixture lasts; yields its
    base URL, which the env's links then use too."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    base = f"http://127.0.0.1:{server.server_port}"
    env.config = env.config.with_(base_url=base)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield base
    server.shutdown()


def _mover(env: Env, tokens: tuple[str, ...]) -> tuple[str | None, list[str]]:
    """The token of the seat to move and its legal moves (None and none once it is over)."""
    from pbem.services.play import game_pages

    for t in tokens:
        legal = game_pages.legal_moves(env, t)
        if legal:
            return t, legal
    return None, []


def play_random(env: Env, public_id: str, count: int | None = None, seed: int = 3) -> None:
    """Random legal moves by whoever is to move, ``count`` of them or to the end."""
    from pbem.services.core import access
    from pbem.services.play import game_pages, moves

    rnd = random.Random(seed)
    done = 0
    n = len(game_pages.public_page(env, public_id).entries)
    tokens = game_pages.seat_tokens(env, public_id)
    while count is None or done < count:
        t, legal = _mover(env, tokens)
        if t is None:
            return  # the game is over
        n += 1
        moves.submit_move(env, t, n, rnd.choice(legal), access.Client())
        done += 1
        if t == tokens[0]:  # the other seat is mostly the next to move: ask it first (asking
            tokens = (tokens[1], tokens[0])  # a seat that is not to move costs as much)


def fewer_examples(items: list[pytest.Item]) -> None:
    """The quick loop's properties: each test's own settings, with fewer examples."""
    done: set[int] = set()
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)  # what @given reads
        if own is None or id(test) in done or not hasattr(test, "hypothesis"):
            continue
        done.add(id(test))
        fewer = max(QUICK_LEAST, own.max_examples // QUICK_SHARE)
        if fewer < own.max_examples:
            test._hypothesis_internal_use_settings = settings(own, max_examples=fewer)  # type: ignore[union-attr]
