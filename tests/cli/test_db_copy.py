"""``pbem db copy``: a dev instance (finished, running and computer games) carried from SQLite
into a new database, SQLite and, with PBEM_TEST_DATABASE_URL set, PostgreSQL; every game
verifies there, every row is the source's, the move log is still append-only, new ids
follow the copied ones, and the app serves the copied games. A target that is not empty
or not at the source's revision, and a source that is not at head, are refused untouched.
A SQLite backup (the backup API) and a PostgreSQL one (pg_dump, pg_restore) restored
verify every game too, and the restored move log is still append-only."""

from __future__ import annotations

import random
import secrets
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, create_engine, func, inspect, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from pbem.cli import main
from pbem.clock import FrozenClock
from pbem.config import Config
from pbem.services.core import access
from pbem.services.core.env import Env
from pbem.services.play import computer, game_pages, moves, new_games
from pbem.services.records import analysis
from pbem.store import migrate
from pbem.store.copy import copy, open_engine, tables
from pbem.store.db import Database
from pbem.store.models import MoveRow
from tests.databases import create_pg_database, dispose_engines_on, drop_pg_database
from tests.mail.play import new_game, play, token
from tests.support import SERVER_URL

ENTROPY = bytes(range(32))


@dataclass
class Instance:
    url: str
    finished: str
    running: str
    against_computer: str


def _env(url: str, instance: Path) -> Env:
    config = Config(
        env="testing",
        instance_path=instance,
        database_url=url,
        secret_key="test-secret-key",
        base_url="http://pbem.test",
    )
    return Env(config=config, db=Database(url), clock=FrozenClock())


def _sqlite(path: Path, revision: str = "head") -> str:
    url = f"sqlite:///{path}"
    db = Database(url)
    migrate.upgrade(db.engine, revision)
    db.dispose()
    return url


@pytest.fixture(scope="module")
def instance(tmp_path_factory) -> Instance:
    """A dev-like SQLite instance: a finished game with its analysis, a running one, and a
    game against the computer under way; seat pages seen (the access log)."""
    folder = tmp_path_factory.mktemp("source")
    url = _sqlite(folder / "pbem.sqlite3")
    env = _env(url, folder)
    finished = new_game(env)
    play(env, finished, 6)
    moves.submit_move(env, token(env, finished, 0), 7, "resign", access.Client())
    while analysis.analyse(env, 100):
        pass
    running = new_game(env, emails=("cy@example.test", "di@example.test"))
    play(env, running, 5)
    game_pages.seat_page(env, token(env, running, 0), access.Client())
    created = computer.start(
        env, new_games.PlayerIn("Ada", "ada@example.test"), "easy", contribution=ENTROPY
    )
    seat, rnd = game_pages.seat_tokens(env, created.public_id)[0], random.Random(3)
    for _ in range(4):
        computer.computer_moves(env)
        page = game_pages.seat_page(env, seat, access.Client())
        if page.view.table.to_move is None:
            break
        legal = game_pages.legal_moves(env, seat)
        moves.submit_move(env, seat, page.next_n, rnd.choice(legal), access.Client())
    computer.computer_moves(env)
    env.db.dispose()
    return Instance(url, finished, running, created.public_id)


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path) -> Iterator[str]:
    """An empty database of either kind (PostgreSQL only with PBEM_TEST_DATABASE_URL)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'copy.sqlite3'}"
        return
    if not SERVER_URL:
        pytest.skip("PBEM_TEST_DATABASE_URL is not set")
    url = create_pg_database(SERVER_URL, prefix="pbem_copy")
    yield url
    dispose_engines_on([url])
    drop_pg_database(SERVER_URL, url)


@pytest.fixture
def cli(monkeypatch, tmp_path, instance):
    monkeypatch.setenv("PBEM_DATABASE_URL", instance.url)
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("PBEM_ENV", "development")
    monkeypatch.chdir(tmp_path)


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _rows(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    """Every table's rows by primary key, times in UTC (SQLite keeps no zone)."""

    def utc(value: Any) -> Any:
        if isinstance(value, datetime):
            return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return value

    with engine.connect() as connection:
        return {
            table.name: [
                {k: utc(v) for k, v in row._mapping.items()}
                for row in connection.execute(select(table).order_by(*table.primary_key.columns))
            ]
            for table in tables()
        }


def test_copy_carries_every_row_and_every_game_verifies_there(cli, instance, target, tmp_path):
    result = run("db", "copy", "--to", target)
    assert result.exit_code == 0, result.output
    assert "verified 3 of 3 games in the copy" in result.output

    source, copied = create_engine(instance.url), create_engine(target)
    before, after = _rows(source), _rows(copied)
    assert after == before
    # the models' tables are every table the migrations made: none is left behind
    assert set(inspect(source).get_table_names()) == set(before) | {"alembic_version"}
    assert before["moves"] and before["access_log"] and before["analysis_moves"]
    source.dispose()

    # the move log is still append-only in the copy
    with pytest.raises(DBAPIError, match="append-only"), copied.begin() as connection:
        connection.execute(text("UPDATE moves SET seat = 1 - seat"))
    with pytest.raises(DBAPIError, match="append-only"), copied.begin() as connection:
        connection.execute(text("DELETE FROM moves"))
    copied.dispose()

    # the app serves the copied games, and a new move gets an id past the copied ones
    env = _env(target, tmp_path)
    from pbem.web import create_app

    client = create_app(env=env).test_client()
    for public_id in (instance.finished, instance.running, instance.against_computer):
        assert client.get(f"/g/{public_id}").status_code == 200
    assert client.get(f"/s/{token(env, instance.running, 0)}").status_code == 200
    top = max(row["id"] for row in before["moves"])
    play(env, instance.running, 1)
    with env.db.read() as session:
        assert session.scalar(select(func.max(MoveRow.id))) == top + 1
    env.db.dispose()


def test_a_target_with_rows_is_refused_and_left_as_it_was(cli, instance, target):
    assert run("db", "copy", "--to", target).exit_code == 0
    engine = create_engine(target)
    before = _rows(engine)
    again = run("db", "copy", "--to", target)
    assert again.exit_code == 1
    assert "not empty" in again.output and "games" in again.output
    assert _rows(engine) == before
    engine.dispose()


def test_a_target_at_another_revision_is_refused(cli, target):
    if target.startswith("sqlite"):
        _sqlite(Path(target.removeprefix("sqlite:///")), "0015")
    else:
        engine = create_engine(target)
        migrate.upgrade(engine, "0015")
        engine.dispose()
    result = run("db", "copy", "--to", target)
    assert result.exit_code == 1
    assert "at revision 0015" in result.output and migrate.head_revision() in result.output


def test_a_source_not_at_head_is_refused_naming_the_upgrade(monkeypatch, tmp_path):
    old = _sqlite(tmp_path / "old.sqlite3", "0015")
    monkeypatch.setenv("PBEM_DATABASE_URL", old)
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    fresh = tmp_path / "new.sqlite3"
    result = run("db", "copy", "--to", f"sqlite:///{fresh}")
    assert result.exit_code == 1 and "pbem db upgrade" in result.output
    assert (
        not fresh.exists()
        or not sqlite3.connect(fresh)
        .execute("SELECT name FROM sqlite_master WHERE name = 'games'")
        .fetchall()
    )


@pytest.mark.parametrize(
    "bad, said",
    [
        ("not a url", "not a database URL"),
        ("mysql://root@localhost/pbem", "not a SQLite or PostgreSQL URL"),
    ],
)
def test_a_bad_target_url_is_a_clear_error(cli, bad, said):
    result = run("db", "copy", "--to", bad)
    assert result.exit_code == 1 and said in result.output


def test_a_missing_sqlite_source_is_refused_and_not_made(monkeypatch, tmp_path):
    missing = tmp_path / "nowhere.sqlite3"
    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{missing}")
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    result = run("db", "copy", "--to", f"sqlite:///{tmp_path / 'copy.sqlite3'}")
    assert result.exit_code == 1 and "there is no database at" in result.output
    assert not missing.exists() and not (tmp_path / "copy.sqlite3").exists()


def test_the_source_itself_is_refused(cli, instance):
    result = run("db", "copy", "--to", instance.url)
    assert result.exit_code == 1 and "the source database itself" in result.output


def test_an_unreachable_target_is_one_line_that_never_shows_its_password(cli, tmp_path):
    url = "postgresql+psycopg://pbem:s3cret@127.0.0.1:1/nowhere"
    result = run("db", "copy", "--to", url)
    assert result.exit_code == 1 and "s3cret" not in result.output
    assert "the copy stopped and wrote no rows" in result.output  # one line, no traceback


def test_a_sqlite_backup_restored_verifies_every_game(cli, instance, monkeypatch, tmp_path):
    """docs/deploy.md's SQLite backup: the backup API's copy, restored as the database."""
    backup = tmp_path / "backup.sqlite3"
    source = sqlite3.connect(instance.url.removeprefix("sqlite:///"))
    with closing(source), closing(sqlite3.connect(backup)) as into:
        source.backup(into)
    restored = tmp_path / "restored.sqlite3"
    restored.write_bytes(backup.read_bytes())
    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{restored}")
    ids = (instance.finished, instance.running, instance.against_computer)
    result = run("verify", *[arg for i in ids for arg in ("--game", i)])
    assert result.exit_code == 0, result.output
    assert result.output.count("ok   game") == 3


def test_a_pg_dump_restored_verifies_every_game_and_keeps_the_triggers(
    cli, instance, monkeypatch, tmp_path
):
    """docs/deploy.md's PostgreSQL backup, with its exact options: a custom-format
    ``pg_dump``, ``pg_restore`` into a new database in one transaction."""
    if not SERVER_URL:
        pytest.skip("PBEM_TEST_DATABASE_URL is not set")
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("pg_dump and pg_restore are not installed")
    source = create_pg_database(SERVER_URL, prefix="pbem_copy")
    restored = create_pg_database(SERVER_URL, prefix="pbem_copy")
    try:
        assert run("db", "copy", "--to", source).exit_code == 0
        _dump_and_restore(source, restored, tmp_path)
        monkeypatch.setenv("PBEM_DATABASE_URL", restored)
        ids = (instance.finished, instance.running, instance.against_computer)
        result = run("verify", *[arg for i in ids for arg in ("--game", i)])
        assert result.exit_code == 0, result.output
        assert result.output.count("ok   game") == 3
        engine = create_engine(restored)
        with pytest.raises(DBAPIError, match="append-only"), engine.begin() as connection:
            connection.execute(text("DELETE FROM moves"))
        with pytest.raises(DBAPIError, match="append-only"), engine.begin() as connection:
            connection.execute(text("UPDATE access_log SET action = 'x'"))
        engine.dispose()
    finally:
        dispose_engines_on([source, restored])
        drop_pg_database(SERVER_URL, source)
        drop_pg_database(SERVER_URL, restored)


def test_small_batches_and_a_postgresql_source_copy_the_same_rows(instance, target, tmp_path):
    """Batches of two rows carry the same rows; a copy's copy (PostgreSQL into PostgreSQL
    when the target is one) too, and it names each table with its count as it goes."""
    said: list[tuple[str, int]] = []
    copy(open_engine(instance.url), open_engine(target), batch=2)
    expected = _rows(create_engine(instance.url))
    assert _rows(create_engine(target)) == expected
    if target.startswith("sqlite"):
        again = f"sqlite:///{tmp_path / 'again.sqlite3'}"
    else:
        again = create_pg_database(SERVER_URL, prefix="pbem_copy")
    try:
        copy(open_engine(target), open_engine(again), lambda t, n: said.append((t, n)), batch=3)
        assert _rows(create_engine(again)) == expected
        assert said == [(name, len(rows)) for name, rows in expected.items()]
    finally:
        if not again.startswith("sqlite"):
            dispose_engines_on([again])
            drop_pg_database(SERVER_URL, again)


def test_into_a_new_postgresql_database_as_its_owner_then_granted(cli, instance, tmp_path):
    """Production's way: the owner copies into the database it owns, which has no tables
    yet (the copy migrates it), and grants the application's role, which then plays on
    with ids past the copied ones and still cannot delete a move."""
    if not SERVER_URL:
        pytest.skip("roles are PostgreSQL's")
    tag = secrets.token_hex(4)
    owner, app, name = f"pbem_owner_{tag}", f"pbem_app_{tag}", f"pbem_copy_{tag}"
    restored = f"{name}_restored"

    def url_for(user: str, database: str = name) -> str:
        server = make_url(SERVER_URL).set(username=user, password=None, database=database)
        return server.render_as_string(hide_password=False)

    admin = create_engine(SERVER_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE ROLE "{owner}" LOGIN'))
        c.execute(text(f'CREATE ROLE "{app}" LOGIN'))
        c.execute(text(f'CREATE DATABASE "{name}" OWNER "{owner}"'))
    try:
        result = run("db", "copy", "--to", url_for(owner), "--grant", app)
        assert result.exit_code == 0, result.output
        assert "it had no tables; migrated" in result.output
        assert f"{app} on moves: SELECT, INSERT" in result.output
        assert "verified 3 of 3 games in the copy" in result.output
        _plays_on_as_the_app(url_for(app), instance, tmp_path)
        if shutil.which("pg_dump") and shutil.which("pg_restore"):
            # docs/deploy.md's backup keeps the owner, the grants and the triggers
            with admin.connect() as c:
                c.execute(text(f'CREATE DATABASE "{restored}" OWNER "{owner}"'))
            _dump_and_restore(url_for(owner), url_for(owner, restored), tmp_path)
            with create_engine(url_for(owner, restored)).connect() as c:
                tables_owner = "SELECT tableowner FROM pg_tables WHERE tablename = 'moves'"
                assert c.scalar(text(tables_owner)) == owner
            _plays_on_as_the_app(url_for(app, restored), instance, tmp_path)
    finally:
        dispose_engines_on([url_for(owner), url_for(owner, restored)])
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            c.execute(text(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)'))
            for role in (app, owner):
                c.execute(text(f'DROP ROLE IF EXISTS "{role}"'))
        admin.dispose()


def _plays_on_as_the_app(url: str, instance: Instance, folder: Path) -> None:
    """The application's role plays a move (its id past the others) and cannot delete one."""
    env = _env(url, folder)
    with env.db.read() as session:
        top = session.scalar(select(func.max(MoveRow.id)))
    play(env, instance.running, 1)
    with env.db.read() as session:
        assert session.scalar(select(func.max(MoveRow.id))) == top + 1
    with pytest.raises(DBAPIError), env.db.engine.begin() as connection:
        connection.execute(text("DELETE FROM moves"))
    env.db.dispose()


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _dump_and_restore(source: str, target: str, folder: Path) -> None:
    """docs/deploy.md's PostgreSQL backup and restore, with its exact options."""
    dump = folder / "pbem.dump"
    subprocess.run(
        ["pg_dump", "--format=custom", f"--file={dump}", f"--dbname={_libpq(source)}"],
        check=True,
    )
    subprocess.run(
        [
            "pg_restore",
            "--exit-on-error",
            "--single-transaction",
            f"--dbname={_libpq(target)}",
            str(dump),
        ],
        check=True,
    )


def test_a_copy_that_fails_leaves_the_target_empty_and_can_run_again(instance, target):
    """A target that `pbem db upgrade` set up is taken; a copy broken off halfway writes
    nothing (one transaction), so the next copy starts on an empty target."""
    engine = open_engine(target)
    migrate.upgrade(engine)

    def broken_off(table: str, rows: int) -> None:
        if table == "moves":
            raise RuntimeError("the disk is full")

    with pytest.raises(RuntimeError, match="disk is full"):
        copy(open_engine(instance.url), engine, broken_off)
    assert all(not rows for rows in _rows(engine).values())
    done = copy(open_engine(instance.url), engine)
    assert not done.migrated and done.rows["moves"] > 0
    assert _rows(engine) == _rows(create_engine(instance.url))
    engine.dispose()


def test_a_game_that_fails_in_the_copy_is_named_and_the_exit_is_1(
    cli, instance, monkeypatch, tmp_path
):
    """A source whose log was rewritten behind the triggers' back: the copy carries it as
    it is, and its verification names that game, flags it there, and fails."""
    tampered = tmp_path / "tampered.sqlite3"
    source = sqlite3.connect(instance.url.removeprefix("sqlite:///"))
    with closing(source), closing(sqlite3.connect(tampered)) as into:
        source.backup(into)
        into.execute("DROP TRIGGER moves_no_update")
        into.execute(
            "UPDATE moves SET hash = 'x' || substr(hash, 2) WHERE n = 2 AND game_id ="
            " (SELECT id FROM games WHERE public_id = ?)",
            (instance.finished,),
        )
        into.commit()
    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{tampered}")
    target = tmp_path / "copy.sqlite3"
    result = run("db", "copy", "--to", f"sqlite:///{target}")
    assert result.exit_code == 1
    assert f"FAIL game {instance.finished}: chain" in result.output
    assert "verified 2 of 3 games in the copy" in result.output
    assert "1 game(s) failed to verify" in result.output
    with closing(sqlite3.connect(target)) as copied:
        flagged = copied.execute("SELECT public_id FROM games WHERE integrity_error IS NOT NULL")
        assert [row[0] for row in flagged] == [instance.finished]
