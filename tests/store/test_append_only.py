"""The move log and the access log are append-only against every statement (migration 0010),
and on PostgreSQL the application's own role (``pbem db grant``) cannot lift that.

On SQLite each way a statement could replace, update or delete a logged row is refused and
leaves the row as it was, while a racing duplicate of move ``n`` is still "the game has
moved on". On PostgreSQL a role set up by the command plays and mails whole games through
the services, but cannot update, delete, truncate, or switch off or drop the triggers,
and the owner cannot rewrite a row through ON CONFLICT or MERGE either.
"""

from __future__ import annotations

import io
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, create_engine, event, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError

from pbem.mail.delivery import ConsoleBackend
from pbem.services.core import access, limits
from pbem.services.core.env import Env
from pbem.services.core.errors import WrongState
from pbem.services.play import game_pages, moves, new_games, ratings, replies, seat_settings
from pbem.services.play.link_recovery import reissue_link
from pbem.services.records import analysis, game_records
from pbem.services.scheduled import jobs, retention
from pbem.store import migrate, roles
from pbem.store.db import Database, is_sqlite
from pbem.store.models import AccessLog, Base, Game, MoveRow
from tests.helpers import csrf_of
from tests.support import SERVER_URL, play_random
from tests.web.test_players import sign_in

MOVE_COLUMNS = "id, game_id, n, seat, move, at, hash, position, source, message"
ACCESS_COLUMNS = "id, game_id, player_id, seat, at, action, seen_n, key_version, ip, detail"

SQLITE_TRIGGERS = {
    "moves_no_update",
    "moves_no_delete",
    "moves_no_replace",
    "access_log_no_update",
    "access_log_no_delete",
    "access_log_no_replace",
}
POSTGRES_TRIGGERS = {
    "moves_no_update_delete",
    "moves_no_truncate",
    "access_log_no_update_delete",
    "access_log_no_truncate",
}


@dataclass(frozen=True)
class Logged:
    """One game's first move and its access-log rows, as stored."""

    game_id: int
    move: dict[str, Any]
    access: dict[str, Any]


def _played(env: Env) -> Logged:
    created = new_games.create_game(
        env, (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test"))
    )
    token = created.tokens[game_pages.public_page(env, created.public_id).view.table.to_move]
    moves.submit_move(env, token, 1, game_pages.legal_moves(env, token)[0], access.Client())
    return _stored(env.db.engine, created.public_id)


def _stored(engine: Engine, public_id: str) -> Logged:
    with engine.connect() as c:
        game_id = c.execute(
            text("SELECT id FROM games WHERE public_id = :p"), {"p": public_id}
        ).scalar_one()
        move = c.execute(
            text(f"SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = :g"), {"g": game_id}
        ).one()
        access_row = c.execute(
            text(f"SELECT {ACCESS_COLUMNS} FROM access_log WHERE game_id = :g ORDER BY id LIMIT 1"),
            {"g": game_id},
        ).one()
    return Logged(game_id, dict(move._mapping), dict(access_row._mapping))


def _unchanged(engine: Engine, before: Logged) -> None:
    with engine.connect() as c:
        moves_now = c.execute(
            text(f"SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = :g"), {"g": before.game_id}
        ).all()
        access_now = c.execute(
            text(f"SELECT {ACCESS_COLUMNS} FROM access_log WHERE id = :i"),
            {"i": before.access["id"]},
        ).one()
    assert [dict(r._mapping) for r in moves_now] == [before.move]
    assert dict(access_now._mapping) == before.access


def _params(logged: Logged) -> dict[str, Any]:
    """The stored move's values and its game's first access-log row, to collide with."""
    return {**logged.move, "access_id": logged.access["id"]}


def _move(with_id: bool = True, n: str = ":n") -> str:
    """``INTO moves …`` with the stored move's values: its id (or a new one) and ``n``."""
    columns, values = (
        "game_id, n, seat, move, at, hash, position, source",
        (f":game_id, {n}, :seat, 'camels', :at, :hash, :position, 'sql'"),
    )
    if with_id:
        columns, values = f"id, {columns}", f":id, {values}"
    return f"INTO moves ({columns}) VALUES ({values})"


ACCESS = (
    "INTO access_log (id, game_id, seat, at, action)"
    " VALUES (:access_id, :game_id, 0, :at, 'forged')"
)

#: Statements both databases understand, each of which would rewrite a logged row.
EVERYWHERE = {
    "move upsert on (game, n)": f"INSERT {_move(False)}"
    " ON CONFLICT (game_id, n) DO UPDATE SET move = excluded.move",
    "move upsert on id": f"INSERT {_move(n=':n + 1000')}"
    " ON CONFLICT (id) DO UPDATE SET move = excluded.move, n = excluded.n",
    "access upsert on id": f"INSERT {ACCESS} ON CONFLICT (id) DO UPDATE SET action = 'x'",
    "move update": "UPDATE moves SET move = 'camels' WHERE id = :id",
    "move delete": "DELETE FROM moves WHERE id = :id",
    "access update": "UPDATE access_log SET ip = '203.0.113.9' WHERE id = :access_id",
    "access delete": "DELETE FROM access_log WHERE id = :access_id",
    "access delete all": "DELETE FROM access_log",
}
#: SQLite's own ways: REPLACE deletes the row it meets without firing delete triggers.
SQLITE_ONLY = {
    "REPLACE on (game, n)": f"REPLACE {_move(False)}",
    "INSERT OR REPLACE on (game, n)": f"INSERT OR REPLACE {_move(False)}",
    "INSERT OR REPLACE on id": f"INSERT OR REPLACE {_move(n=':n + 1000')}",
    "REPLACE access on id": f"REPLACE {ACCESS}",
    "INSERT OR REPLACE access": f"INSERT OR REPLACE {ACCESS}",
    "UPDATE OR REPLACE": "UPDATE OR REPLACE moves SET move = 'camels' WHERE id = :id",
    "UPDATE OR REPLACE onto another n": "UPDATE OR REPLACE moves SET n = n + 1 WHERE id = :id",
    "UPDATE OR REPLACE access": "UPDATE OR REPLACE access_log SET action = 'x'"
    " WHERE id = :access_id",
    # harmless without 0010 (nothing changes), refused with it like any insert over a move
    "INSERT OR IGNORE over a move": f"INSERT OR IGNORE {_move()}",
    "ON CONFLICT DO NOTHING over a move": f"INSERT {_move(False)} ON CONFLICT DO NOTHING",
}
#: PostgreSQL 15's MERGE updates and deletes through the row triggers too.
POSTGRES_ONLY = {
    "MERGE update": "MERGE INTO moves m USING (SELECT CAST(:id AS integer) AS id) s ON m.id = s.id"
    " WHEN MATCHED THEN UPDATE SET move = 'camels'",
    "MERGE delete": "MERGE INTO moves m USING (SELECT CAST(:id AS integer) AS id) s ON m.id = s.id"
    " WHEN MATCHED THEN DELETE",
    "TRUNCATE moves": "TRUNCATE moves CASCADE",
    "TRUNCATE access_log": "TRUNCATE access_log",
}


def _statements(url: str) -> dict[str, str]:
    return {**EVERYWHERE, **(SQLITE_ONLY if is_sqlite(url) else POSTGRES_ONLY)}


def test_every_append_only_trigger_is_there_at_head(database):
    """A batch migration that rebuilt a log on SQLite would lose them: this says so."""
    with database.engine.connect() as c:
        if is_sqlite(database.url):
            found = set(c.scalars(text("SELECT name FROM sqlite_master WHERE type = 'trigger'")))
            assert found >= SQLITE_TRIGGERS
        else:
            found = set(
                c.scalars(
                    text("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgenabled = 'O'")
                )
            )
            assert found >= POSTGRES_TRIGGERS


@pytest.mark.parametrize("name", sorted({**EVERYWHERE, **SQLITE_ONLY, **POSTGRES_ONLY}))
def test_no_statement_rewrites_a_logged_row(env, name):
    """Whoever runs it (here the tests' own role, which owns the tables or is a
    superuser), the statement is refused and the rows stay exactly as they were."""
    statement = _statements(env.db.url).get(name)
    if statement is None:
        pytest.skip("not this database's statement")
    logged = _played(env)
    with pytest.raises(DBAPIError, match="append-only"), env.db.write() as session:
        session.execute(text(statement), _params(logged))
    _unchanged(env.db.engine, logged)


REDUCE = (
    "UPDATE access_log SET ip = :ip, user_agent = 'Firefox', detail = NULL, reduced_at = :at"
    " WHERE id = :access_id"
)
#: Each would pass for a reduction, but changes what a reduction may not.
NOT_A_REDUCTION = {
    "no reduced_at": "UPDATE access_log SET ip = '203.0.x.x' WHERE id = :access_id",
    "a whole address": REDUCE.replace(":ip", "'203.0.113.9'"),
    "the action too": REDUCE.replace("detail = NULL", "action = 'forged'"),
    "the seat too": REDUCE.replace("detail = NULL", "seat = 1 - seat"),
    "the time too": REDUCE.replace("detail = NULL", "at = :later"),
    "the key version too": REDUCE.replace("detail = NULL", "key_version = 99"),
}


@pytest.mark.parametrize("name", sorted(NOT_A_REDUCTION))
def test_the_access_log_takes_no_update_but_a_reduction(env, name):
    logged = _played(env)
    now = env.clock.now()
    params = {**_params(logged), "ip": "203.0.x.x", "at": now, "later": now + timedelta(days=1)}
    with pytest.raises(DBAPIError, match="append-only"), env.db.write() as session:
        session.execute(text(NOT_A_REDUCTION[name]), params)
    _unchanged(env.db.engine, logged)


def test_a_row_is_reduced_once_and_then_frozen_again(env):
    """The one UPDATE the access log takes (0015): its client fields, once; the moves'
    triggers are untouched by it."""
    logged = _played(env)
    params = {**_params(logged), "ip": "203.0.x.x", "at": env.clock.now()}
    with env.db.write() as session:
        session.execute(text(REDUCE), params)
    with env.db.read() as session:
        row = session.get(AccessLog, logged.access["id"])
        assert (row.ip, row.user_agent, row.detail, row.action) == (
            "203.0.x.x",
            "Firefox",
            None,
            logged.access["action"],
        )
    with pytest.raises(DBAPIError, match="append-only"), env.db.write() as session:
        session.execute(text(REDUCE), {**params, "ip": None})
    for statement in ("move update", "move delete", "access delete"):
        with pytest.raises(DBAPIError, match="append-only"), env.db.write() as session:
            session.execute(text(EVERYWHERE[statement]), params)


def test_a_plain_duplicate_n_is_still_an_integrity_error(env):
    """What two racing moves meet below the use case: on SQLite now 0010's trigger,
    on PostgreSQL the unique key, and the same exception either way."""
    logged = _played(env)
    with pytest.raises(IntegrityError), env.db.write() as session:
        session.execute(text(f"INSERT {_move(False)}"), _params(logged))
    _unchanged(env.db.engine, logged)


def test_a_move_that_meets_an_existing_n_is_told_the_game_has_moved_on(env):
    """Another writer's move ``n`` lands between the use case's read of the log and its
    INSERT (here sent first on the same connection): the INSERT is refused, the use case
    answers "the game has moved on", and its whole transaction is gone."""
    created = new_games.create_game(
        env, (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test"))
    )
    token = created.tokens[game_pages.public_page(env, created.public_id).view.table.to_move]
    legal = game_pages.legal_moves(env, token)
    sneaked: list[str] = []

    def sneak_in_first(
        _conn: Any, cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool
    ) -> None:
        if statement.startswith("INSERT INTO moves") and not sneaked:
            sneaked.append(statement)
            cursor.execute(statement, parameters)

    event.listen(env.db.engine, "before_cursor_execute", sneak_in_first)
    try:
        with pytest.raises(WrongState, match="moved on"):
            moves.submit_move(env, token, 1, legal[0], access.Client())
    finally:
        event.remove(env.db.engine, "before_cursor_execute", sneak_in_first)
    assert sneaked
    assert not game_pages.public_page(env, created.public_id).entries
    done = moves.submit_move(env, token, 1, legal[0], access.Client())  # and it can go on
    assert done.n == 1


def test_the_privileges_name_every_table_and_keep_the_logs_append_only():
    """A new table must say what the application may do with it (store/roles.py)."""
    assert set(roles.PRIVILEGES) == set(Base.metadata.tables) | {"alembic_version"}
    assert {"moves", "access_log"} == roles.APPEND_ONLY
    assert roles.PRIVILEGES["moves"] == ("SELECT", "INSERT")
    # the access log's one exception: its client fields reduced (retention, erasure; 0015)
    assert roles.PRIVILEGES["access_log"] == ("SELECT", "INSERT", roles.REDUCTION)
    assert roles.REDUCTION == "UPDATE (ip, user_agent, detail, reduced_at)"
    for privileges in roles.PRIVILEGES.values():
        assert "TRUNCATE" not in privileges and "TRIGGER" not in privileges


def test_db_grant_on_sqlite_says_there_is_nothing_to_grant(monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{tmp_path / 'x.sqlite3'}")
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("PBEM_ENV", "development")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(_main(), ["db", "grant", "pbem_app"])
    assert result.exit_code == 1 and "only PostgreSQL has roles" in result.output


def _main() -> Any:
    from pbem.cli import main

    return main


# ------------------------------------------------------------------ PostgreSQL's roles


@dataclass
class Roles:
    """A database owned by a role of its own, and the application's role on it."""

    owner: str
    app: str
    owner_url: str
    app_url: str
    owner_db: Database


def _url_for(user: str, database: str) -> str:
    return (
        make_url(SERVER_URL)
        .set(username=user, password=None, database=database)
        .render_as_string(hide_password=False)
    )


def _admin() -> Engine:
    return create_engine(SERVER_URL, isolation_level="AUTOCOMMIT")


@pytest.fixture(scope="module")
def pg_roles() -> Iterator[Roles]:
    """Unique role names per run (roles are the server's, not the database's); the
    database, then the roles, are dropped at the end."""
    if not SERVER_URL:
        pytest.skip("roles are PostgreSQL's")
    tag = secrets.token_hex(4)
    owner, app, name = f"pbem_owner_{tag}", f"pbem_app_{tag}", f"pbem_roles_{tag}"
    admin = _admin()
    with admin.connect() as c:
        c.execute(text(f'CREATE ROLE "{owner}" LOGIN'))
        c.execute(text(f'CREATE ROLE "{app}" LOGIN'))
        c.execute(text(f'CREATE DATABASE "{name}" OWNER "{owner}"'))
    owner_db = Database(_url_for(owner, name))
    try:
        migrate.upgrade(owner_db.engine)
        roles.grant(owner_db.engine, app)
        yield Roles(owner, app, _url_for(owner, name), _url_for(app, name), owner_db)
    finally:
        owner_db.dispose()
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            for role in (app, owner):
                c.execute(text(f'DROP ROLE IF EXISTS "{role}"'))
        admin.dispose()


@pytest.fixture
def app_env(pg_roles, config, clock) -> Iterator[Env]:
    """The services as the application runs them in production: as the granted role."""
    db = Database(pg_roles.app_url)
    env = Env(config=config.with_(database_url=pg_roles.app_url), db=db, clock=clock)
    limits.forget_all(env)
    yield env
    db.dispose()


def test_the_app_role_plays_mails_and_keeps_accounts(app_env, pg_roles):
    """A day of the site as the granted role: every kind of write the services make
    (moves to the end of a match, ratings, seat settings, links, sign-in, mail out and
    in, the scheduler's jobs, erasure) needs nothing beyond ``roles.PRIVILEGES``."""
    from pbem.web import create_app

    env = app_env
    env.db.check_schema()
    email = "role-player@example.test"
    public_id = new_games.create_game(
        env, (new_games.PlayerIn("Ada", email), new_games.PlayerIn("Bo", "bo@example.test"))
    ).public_id
    play_random(env, public_id)
    assert game_pages.public_page(env, public_id).game.status == "finished"
    assert game_records.verify_game(env, public_id).ok

    running = new_games.create_game(
        env, (new_games.PlayerIn("Ada", email), new_games.PlayerIn("Bo", "bo@example.test"))
    ).public_id
    play_random(env, running, 5)
    token = game_pages.seat_tokens(env, running)[0]
    seat_settings.set_away(env, token, 2, access.Client())
    seat_settings.come_back(env, token, access.Client())
    reissue_link(env, token, access.Client())
    jobs.run_clock(env)
    while jobs.deliver_mail(env, ConsoleBackend(io.StringIO())):
        pass
    outcome = replies.handle_mail(
        env,
        b"Message-ID: <role-test@example.test>\r\nFrom: x@example.test\r\n"
        b"To: nobody@example.test\r\nSubject: hi\r\n\r\ntake diamond\r\n",
        ["nobody@example.test"],
    )
    assert outcome.outcome == "ignored"
    ratings.rebuild(env)
    limits.purge(env)
    env.clock.advance(days=env.config.retention.client_days + 1)  # the retention job's work
    assert retention.run(env, batch=5).access
    # the analysis of finished games: the job's first slice, and a game computed again
    short = new_games.create_game(
        env, (new_games.PlayerIn("Ada", email), new_games.PlayerIn("Bo", "bo@example.test"))
    ).public_id
    first = game_pages.public_page(env, short).view.table.to_move
    moves.submit_move(env, game_pages.seat_tokens(env, short)[first], 1, "resign", access.Client())
    assert analysis.analyse(env, 2).moves == 2
    assert analysis.recompute(env, [short]) == [short]
    assert analysis.recompute(env, [short]) == [short]

    app = create_app(env=env)
    app.config["TESTING"] = True
    client = app.test_client()
    sign_in(client, env, email)
    page = client.get("/me")
    assert page.status_code == 200
    assert client.post(
        "/me/erase", data={"csrf_token": csrf_of(page.text), "confirm": "erase"}
    ).status_code in (200, 303)
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        assert session.scalar(select(MoveRow.n).where(MoveRow.game_id == game.id).limit(1))
        assert session.scalar(select(AccessLog.id).where(AccessLog.action == "erased").limit(1))


APP_REFUSED = {
    "UPDATE": "UPDATE moves SET move = 'camels' WHERE id = :id",
    "DELETE": "DELETE FROM moves WHERE id = :id",
    "TRUNCATE": "TRUNCATE moves",
    "TRUNCATE CASCADE": "TRUNCATE games CASCADE",
    "DISABLE TRIGGER": "ALTER TABLE moves DISABLE TRIGGER moves_no_update_delete",
    "DISABLE TRIGGER ALL": "ALTER TABLE moves DISABLE TRIGGER ALL",
    "DROP TRIGGER": "DROP TRIGGER moves_no_update_delete ON moves",
    "replace the trigger's function": "CREATE OR REPLACE FUNCTION moves_append_only()"
    " RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
    "DROP TABLE": "DROP TABLE moves CASCADE",
    "a trigger of its own": "CREATE TRIGGER mine BEFORE INSERT ON moves"
    " FOR EACH ROW EXECUTE FUNCTION moves_append_only()",
    "ON CONFLICT DO UPDATE": f"INSERT {_move()} ON CONFLICT (id) DO UPDATE SET move = 'x'",
    "replica mode skips triggers": "SET session_replication_role = replica",
    "take the owner's role": "SET ROLE {owner}",
    "access UPDATE": "UPDATE access_log SET action = 'x' WHERE id = :access_id",
    "access UPDATE of a client field": "UPDATE access_log SET ip = NULL WHERE id = :access_id",
    "access DELETE": "DELETE FROM access_log WHERE id = :access_id",
    "access TRUNCATE": "TRUNCATE access_log",
    "access DISABLE TRIGGER": "ALTER TABLE access_log DISABLE TRIGGER access_log_no_update_delete",
    "access DROP TRIGGER": "DROP TRIGGER access_log_no_update_delete ON access_log",
}


@pytest.mark.parametrize("name", sorted(APP_REFUSED))
def test_the_app_role_cannot_rewrite_the_logs_or_lift_their_guard(app_env, pg_roles, name):
    logged = _played(app_env)
    statement = APP_REFUSED[name].format(owner=f'"{pg_roles.owner}"')
    with pytest.raises(DBAPIError) as refused, app_env.db.write() as session:
        session.execute(text(statement), _params(logged))
    # the client fields may be updated (the reduction), but only as 0015's trigger allows
    said = ("permission denied", "must be owner", "append-only")
    assert any(s in str(refused.value) for s in said[: 3 if "client field" in name else 2])
    _unchanged(pg_roles.owner_db.engine, logged)
    with pg_roles.owner_db.engine.connect() as c:
        enabled = set(
            c.scalars(
                text("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgenabled = 'O'")
            )
        )
    assert enabled >= POSTGRES_TRIGGERS


@pytest.mark.parametrize("name", ["move upsert on (game, n)", "move upsert on id", "MERGE update"])
def test_the_owner_cannot_rewrite_a_move_through_on_conflict_either(app_env, pg_roles, name):
    logged = _played(app_env)
    statement = {**EVERYWHERE, **POSTGRES_ONLY}[name]
    with pytest.raises(DBAPIError, match="append-only"), pg_roles.owner_db.write() as session:
        session.execute(text(statement), _params(logged))
    _unchanged(pg_roles.owner_db.engine, logged)


def test_grant_is_idempotent_and_takes_back_what_was_granted_by_hand(pg_roles):
    owner = pg_roles.owner_db.engine
    with owner.begin() as c:
        c.execute(text(f'GRANT UPDATE, DELETE, TRUNCATE ON moves, access_log TO "{pg_roles.app}"'))
    first = roles.grant(owner, pg_roles.app)
    second = roles.grant(owner, pg_roles.app)
    assert first == second
    assert "moves_id_seq" in " ".join(first.sequences)
    with owner.connect() as c:
        for table, privileges in roles.PRIVILEGES.items():
            assert roles.effective(c, pg_roles.app, table) == set(privileges), table


def test_grant_refuses_a_role_it_cannot_restrict(pg_roles):
    owner = pg_roles.owner_db.engine
    member = f"{pg_roles.app}_member"
    admin = _admin()
    try:
        with admin.connect() as c:
            c.execute(text(f'CREATE ROLE "{member}" LOGIN IN ROLE "{pg_roles.owner}"'))
        with pytest.raises(roles.GrantError, match="owner"):
            roles.grant(owner, member)
        with pytest.raises(roles.GrantError, match="superuser"):
            roles.grant(owner, make_url(SERVER_URL).username or "postgres")
        with pytest.raises(roles.GrantError, match="role running this command"):
            roles.grant(owner, pg_roles.owner)
        with pytest.raises(roles.GrantError, match="no role"):
            roles.grant(owner, f"{pg_roles.app}_nobody")
        with owner.begin() as c:  # a privilege through PUBLIC reaches every role
            c.execute(text("GRANT UPDATE ON moves TO PUBLIC"))
        try:
            with pytest.raises(roles.GrantError, match="UPDATE on moves"):
                roles.grant(owner, pg_roles.app)
        finally:
            with owner.begin() as c:
                c.execute(text("REVOKE UPDATE ON moves FROM PUBLIC"))
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP ROLE IF EXISTS "{member}"'))
        admin.dispose()
    assert roles.grant(owner, pg_roles.app).tables == roles.PRIVILEGES


def test_db_upgrade_grants_to_the_configured_role(pg_roles, monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_DATABASE_URL", pg_roles.owner_url)
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("PBEM_ENV", "development")
    monkeypatch.setenv("PBEM_DATABASE_APP_ROLE", pg_roles.app)  # config.py reads it
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(_main(), ["db", "upgrade"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"{pg_roles.app} on moves: SELECT, INSERT\n" in result.output
    assert f"{pg_roles.app} on rate_limits: SELECT, INSERT, UPDATE, DELETE\n" in result.output
    again = CliRunner().invoke(_main(), ["db", "grant", pg_roles.app], catch_exceptions=False)
    assert again.exit_code == 0 and f"{pg_roles.app} on access_log: SELECT, INSERT" in again.output
    refused = CliRunner().invoke(_main(), ["db", "grant", pg_roles.owner])
    assert refused.exit_code == 1 and "a role of its own" in refused.output
