"""Connections: pinged only after lying idle, a lost one answered with 503 and replaced,
and the seat page's statements committed one by one without a transaction."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, event, func, select, text
from sqlalchemy.exc import IntegrityError

from pbem.services.play import new_games
from pbem.store import postgresql
from pbem.store.access_log import INSERT as INSERT_ACCESS
from pbem.store.db import Database, DatabaseUnavailable, is_sqlite
from pbem.store.models import AccessLog, Game, MoveRow
from pbem.store.move_log import INSERT as INSERT_MOVE

APP_NAME = "pbem-connection-test"


@pytest.fixture
def pg_only(database_url):
    if is_sqlite(database_url):
        pytest.skip("pinging and cutting connections is PostgreSQL's")


@pytest.fixture
def own_db(database_url, pg_only):
    """A Database with a pool of its own, its connections named so they can be cut."""
    url = database_url + ("&" if "?" in database_url else "?") + f"application_name={APP_NAME}"
    db = Database(url)
    yield db
    db.dispose()


def cut_connections(database_url: str) -> int:
    """What a database restart does to the pool: every connection of ``own_db`` is gone."""
    admin = create_engine(database_url)
    try:
        with admin.connect() as c:
            cut = c.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE application_name = :name"
                ),
                {"name": APP_NAME},
            ).scalar()
            c.commit()
        return cut or 0
    finally:
        admin.dispose()


def one(db: Database) -> int:
    with db.read() as session:
        return session.execute(text("SELECT 1")).scalar_one()


def test_an_idle_connection_is_pinged_and_replaced_before_use(own_db, database_url, monkeypatch):
    assert one(own_db) == 1
    monkeypatch.setattr(postgresql, "PING_IDLE_AFTER", 0.0)  # every connection counts as idle
    assert cut_connections(database_url) == 1
    assert one(own_db) == 1  # the ping found it dead; the pool opened a new one


def test_a_connection_just_used_is_not_pinged_so_a_cut_fails_once_then_heals(
    own_db, database_url, monkeypatch
):
    monkeypatch.setattr(postgresql, "PING_IDLE_AFTER", 3600.0)
    assert one(own_db) == 1
    assert cut_connections(database_url) == 1
    with pytest.raises(DatabaseUnavailable):
        one(own_db)
    assert one(own_db) == 1


def test_a_lost_connection_answers_503_in_words_and_the_next_request_is_served(
    own_db, database_url, config, clock, monkeypatch
):
    from pbem.services.core.env import Env
    from pbem.web import create_app

    monkeypatch.setattr(postgresql, "PING_IDLE_AFTER", 3600.0)
    env = Env(config=config, db=own_db, clock=clock)
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
    )
    client = create_app(env=env).test_client()
    assert client.get(f"/s/{created.tokens[0]}").status_code == 200

    assert cut_connections(database_url) == 1
    page = client.get(f"/s/{created.tokens[0]}")
    assert page.status_code == 503
    assert page.headers["Retry-After"] == "30"
    assert "lost its connection to the game" in page.text

    assert client.get(f"/s/{created.tokens[0]}").status_code == 200  # a new connection
    assert cut_connections(database_url) == 1
    answer = client.post(
        "/api/seat/moves",
        json={"n": 1, "move": "take camels"},
        headers={"Authorization": f"Bearer {created.tokens[0]}"},
    )
    assert answer.status_code == 503
    assert answer.json["status"] == 503 and "database" in answer.json["error"]

    assert client.get(f"/s/{created.tokens[0]}").status_code == 200
    with own_db.read() as session:
        game_id = session.scalar(select(Game.id).where(Game.public_id == created.public_id))
        moves = session.scalar(select(func.count()).where(MoveRow.game_id == game_id))
    assert moves == 0  # the cut move left nothing behind


def test_autocommit_commits_each_statement_at_once(database, env):
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
    )
    with database.read() as session:
        game_id = session.scalar(select(Game.id).where(Game.public_id == created.public_id))

    def views() -> int:
        with database.read() as session:
            return session.scalar(
                select(func.count()).where(AccessLog.game_id == game_id, AccessLog.action == "x")
            )

    with pytest.raises(RuntimeError), database.autocommit() as session:
        session.execute(
            AccessLog.__table__.insert(),
            dict(game_id=game_id, seat=0, at=env.clock.now(), action="x", key_version=1),
        )
        assert views() == 1  # visible to others before the block ends
        raise RuntimeError("after the statement: nothing to roll back")
    assert views() == 1


def test_a_connection_back_from_autocommit_runs_transactions_again(database):
    """The pool hands the same connection to the next use case: it must BEGIN again
    (the driver's connection stays in autocommit mode, and the BEGIN is ours)."""
    with database.autocommit() as session:
        session.execute(text("SELECT 1"))
    with database.write() as session:
        session.execute(text("SELECT 1"))
        raw = session.connection().connection.driver_connection
        if is_sqlite(database.url):
            assert raw.isolation_level is None  # the sqlite3 module still leaves BEGIN to us
            assert raw.in_transaction  # and ours (BEGIN IMMEDIATE) was sent
        else:
            assert raw.autocommit is True  # never switched: a switch is a round trip
            assert raw.info.transaction_status.name == "INTRANS"  # our BEGIN went first


def a_game_id(env) -> int:
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
    )
    with env.db.read() as session:
        return session.scalar(select(Game.id).where(Game.public_id == created.public_id))


def access_row(env, game_id: int, action: str) -> dict[str, object]:
    return dict(game_id=game_id, seat=0, at=env.clock.now(), action=action, key_version=1)


def test_an_insert_sent_without_waiting_still_fails_its_transaction(database, env, caplog):
    """On PostgreSQL a move's INSERTs go out without waiting for their answers (pipeline
    mode): a UNIQUE violation comes back with the COMMIT, as the same IntegrityError,
    nothing of the transaction is written, and the connection goes back to the pool
    fit for the next use case (not dropped, with an error logged, by the pool's reset)."""
    game_id = a_game_id(env)
    move = dict(
        game_id=game_id,
        n=1,
        seat=0,
        move="camels",
        at=env.clock.now(),
        hash="h",
        position="{}",
        source="web",
        message=None,
    )
    with database.write() as session:
        session.execute(INSERT_MOVE, move)
    dropped = []
    event.listen(database.engine, "invalidate", lambda *args: dropped.append(args))
    event.listen(database.engine, "close", lambda *args: dropped.append(args))
    with pytest.raises(IntegrityError), database.write() as session:
        session.execute(INSERT_ACCESS, access_row(env, game_id, "before"))
        session.execute(INSERT_MOVE, move)  # n = 1 again
    with database.read() as session:
        moves = session.scalar(select(func.count()).where(MoveRow.game_id == game_id))
        logged = session.scalar(select(func.count()).where(AccessLog.action == "before"))
    assert (moves, logged) == (1, 0)
    assert dropped == []
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text


def test_an_autocommit_block_answers_for_its_last_insert(database, env):
    """The seat page's access-log row is the last statement of its block and nothing
    reads after it: its error is still raised by the block, not lost or left to the
    next user of the connection."""
    with pytest.raises(IntegrityError), database.autocommit() as session:
        session.execute(INSERT_ACCESS, access_row(env, 10**9, "nowhere"))  # no such game
    game_id = a_game_id(env)  # the connection serves the next use case as usual
    with database.autocommit() as session:
        session.execute(INSERT_ACCESS, access_row(env, game_id, "here"))
    with database.read() as session:
        assert session.scalar(select(func.count()).where(AccessLog.action == "here")) == 1


def test_a_description_read_late_is_the_one_psycopg_builds(own_db):
    """The description's columns are built only when read (``postgresql._Cursor``): the
    same names, types and sizes as psycopg's own, even read after the next statement."""
    sql = "SELECT 1 AS one, 'x'::varchar(5) AS two, now() AS three"
    with own_db.engine.connect() as connection:
        dbapi_connection = connection.connection.dbapi_connection
        cursor = dbapi_connection.cursor()
        assert postgresql.LAZY_DESCRIPTIONS  # the psycopg in use still has what _Cursor reads
        assert isinstance(cursor, postgresql._Cursor)

        def run(on, statement):  # in pipeline mode: wait for its answer
            on.execute(statement)
            dbapi_connection.answer()

        run(cursor, sql)
        late = cursor.description
        plain = postgresql.psycopg.Cursor(dbapi_connection)
        run(plain, sql)
        expected = [tuple(column) for column in plain.description]
        run(cursor, "SELECT 2 AS other")  # the late one still describes the first result
        assert [tuple(column) for column in late] == expected
        assert [column.name for column in late] == ["one", "two", "three"]
        assert len(late) == 3 and late[-1].name == "three"
        run(cursor, "SELECT")  # tuples, no fields: an empty description, not None
        assert cursor.description is not None and len(cursor.description) == 0
        run(cursor, "SET TIME ZONE 'UTC'")
        assert cursor.description is None
        plain.close()
        cursor.close()
