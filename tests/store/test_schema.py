"""Migrations, the append-only triggers, the schema check and SQLite's settings."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from pbem.engine.names import name_problem
from pbem.mail import outbox_row
from pbem.store import migrate
from pbem.store import outbox as outbox_store
from pbem.store.db import Database, SchemaError, is_sqlite, table_names
from pbem.store.models import MoveRow

TABLES = {"games", "seats", "moves", "access_log", "outbox", "alembic_version"}


def test_migrations_go_from_empty_to_head_and_back(fresh_database):
    db = Database(fresh_database())
    try:
        assert migrate.current_revision(db.engine) is None
        migrate.upgrade(db.engine)
        assert migrate.current_revision(db.engine) == migrate.head_revision()
        assert table_names(db.engine) >= TABLES
        migrate.downgrade(db.engine, "base")
        assert table_names(db.engine) <= {"alembic_version"}
        migrate.upgrade(db.engine)  # and up again: the downgrade left nothing behind
        assert table_names(db.engine) >= TABLES
    finally:
        db.dispose()


def test_a_downgrade_below_0006_waits_for_the_unwritten_mail(fresh_database):
    """A server at 0005 could not write a move's mail queued by 0006: none is lost."""
    db = Database(fresh_database())
    now = datetime(2026, 12, 3, tzinfo=UTC)
    try:
        migrate.upgrade(db.engine)
        with db.write() as session:
            outbox_store.queue(
                session,
                outbox_row.message(
                    now=now, mail_from="pbem@pbem.test", kind="your_turn", to="a@t", about_n=1
                ),
            )
        with pytest.raises(RuntimeError, match="not yet written"):
            migrate.downgrade(db.engine, "0005")
        # PostgreSQL rolls the whole downgrade back; SQLite keeps the steps above 0006 (its
        # DDL commits as it goes). Either way the schema still holds the unwritten mail.
        assert migrate.current_revision(db.engine) in ("0006", migrate.head_revision())
        with db.read() as session:
            assert session.execute(text("SELECT count(*) FROM outbox WHERE text_body IS NULL"))
            assert session.scalar(text("SELECT count(*) FROM outbox WHERE about_n = 1")) == 1
        with db.write() as session:
            session.execute(
                text("UPDATE outbox SET subject = 's', text_body = 't', html_body = 'h'")
            )
        migrate.downgrade(db.engine, "0005")
        assert migrate.current_revision(db.engine) == "0005"
    finally:
        db.dispose()


def test_the_app_refuses_an_unmigrated_database(fresh_database, config):
    from pbem.services.core.env import Env
    from pbem.web import create_app

    url = fresh_database()
    env = Env(config=config.with_(database_url=url), db=Database(url))
    with pytest.raises(SchemaError, match="pbem db upgrade"):
        create_app(env=env)
    env.db.dispose()


def _one_move(env) -> MoveRow:
    from pbem.services.core import access
    from pbem.services.play import game_pages, moves, new_games

    created = new_games.create_game(
        env, (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test"))
    )
    token = created.tokens[game_pages.public_page(env, created.public_id).view.table.to_move]
    moves.submit_move(env, token, 1, game_pages.legal_moves(env, token)[0], access.Client())
    with env.db.read() as session:
        return session.scalars(select(MoveRow).order_by(MoveRow.id.desc()).limit(1)).one()


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE moves SET move = 'camels' WHERE id = :id",
        "UPDATE moves SET at = at WHERE id = :id",
        "DELETE FROM moves WHERE id = :id",
        "DELETE FROM moves",
    ],
)
def test_triggers_refuse_update_and_delete_on_moves(env, statement):
    row = _one_move(env)
    with pytest.raises(DBAPIError, match="append-only"), env.db.write() as session:
        session.execute(text(statement), {"id": row.id})
    with env.db.read() as session:
        again = session.get(MoveRow, row.id)
        assert again is not None and again.move == row.move


def test_truncate_is_refused_on_postgresql(env):
    if is_sqlite(env.db.url):
        pytest.skip("SQLite has no TRUNCATE")
    _one_move(env)
    with pytest.raises(DBAPIError, match="append-only"), env.db.write() as session:
        session.execute(text("TRUNCATE moves CASCADE"))


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    with db.read() as session:
        assert session.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert session.execute(text("PRAGMA foreign_keys")).scalar() == 1
    db.dispose()


def test_0007_splits_queued_addresses_and_makes_stored_names_safe(fresh_database):
    """Rows queued as ``Name <address>`` get the two apart; a stored name that the name check
    refuses is rewritten with what it keeps, so no old name can break a mail."""
    db = Database(fresh_database())
    try:
        migrate.upgrade(db.engine, "0006")
        with db.engine.begin() as c:
            c.execute(
                text(
                    "INSERT INTO outbox (message_id, kind, to_addr, subject, text_body, html_body,"
                    " headers, created_at, status, attempts, next_attempt_at) VALUES"
                    " (:m, 'sign_in', :to, 's', 't', 'h', '{}', :now, 'pending', 0, :now)"
                ),
                [
                    {
                        "m": "<1@t>",
                        "to": "Bob <other@example.net>, Bob <bo@example.test>",
                        "now": datetime(2026, 12, 1),
                    },
                    {"m": "<2@t>", "to": "plain@example.test", "now": datetime(2026, 12, 1)},
                ],
            )
            c.execute(
                text(
                    "INSERT INTO players (public_id, email, display_name, created_at,"
                    " session_version, mail_mode, language, timezone, rated_games) VALUES"
                    " ('p1', 'eve@example.test', :name, :now, 1, 'each', 'en', 'UTC', 0)"
                ),
                {
                    "name": "Eve=?utf-8?q?=0D=0ABcc:_x@example.net?=\r\n",
                    "now": datetime(2026, 12, 1),
                },
            )
        migrate.upgrade(db.engine)
        with db.engine.connect() as c:
            rows = dict(
                (m, (a, n))
                for m, a, n in c.execute(text("SELECT message_id, to_addr, to_name FROM outbox"))
            )
            name = c.execute(text("SELECT display_name FROM players")).scalar_one()
        # the name kept is what today's rule keeps (engine.names.sanitized): an address in
        # a name reads as one in a mail client, so its @ goes too (issue 31)
        assert rows["<1@t>"] == ("bo@example.test", "Bob other example.net, Bob")
        assert name_problem(rows["<1@t>"][1]) is None
        assert rows["<2@t>"] == ("plain@example.test", None)
        assert name_problem(name) is None and name.startswith("Eve")
    finally:
        db.dispose()


def test_0009_keeps_old_games_on_version_1_and_downgrades_with_moves_logged(fresh_database, config):
    """Games that existed before 0009 stay ``jaipur-record/1`` (their logs were hashed so);
    new ones are version 2; and 0009 goes down again while games have moves."""
    from pbem.services.core.env import Env

    url = fresh_database()
    db = Database(url)
    env = Env(config=config.with_(database_url=url), db=db)
    try:
        migrate.upgrade(db.engine, "0008")
        with db.engine.begin() as c:
            c.execute(
                text(
                    "INSERT INTO games (public_id, created_at, rules, engine, commitment, seed,"
                    " status, days_per_move, reminder_after_hours, reminder_every_hours,"
                    " timeout_action, vacation_days) VALUES ('old1', :t, 'jaipur/1',"
                    " 'pbem-engine/1', :c, '', 'waiting', NULL, 24, 48, 'claim', 10)"
                ),
                {"t": datetime(2026, 12, 1, tzinfo=UTC), "c": "ab" * 32},
            )
        migrate.upgrade(db.engine)
        with db.read() as session:
            old = session.execute(text("SELECT record_format FROM games WHERE public_id = 'old1'"))
            assert old.scalar() == "jaipur-record/1"
        row = _one_move(env)
        with db.read() as session:
            new = session.execute(
                text("SELECT record_format FROM games WHERE id = :id"), {"id": row.game_id}
            )
            assert new.scalar() == "jaipur-record/2"
        migrate.downgrade(db.engine, "0008")
        assert migrate.current_revision(db.engine) == "0008"
        with db.read() as session:
            assert session.scalar(text("SELECT count(*) FROM moves")) == 1
    finally:
        db.dispose()


def _old_game_with_two_seats(
    c, public_id: str, now: datetime, second_seat: tuple[str, str]
) -> None:
    """A waiting game with Ada (mail each, English) and Bo (``second_seat``: mail mode and
    language), written with the columns every migration since 0010 has."""
    c.execute(
        text(
            "INSERT INTO games (public_id, created_at, rules, engine, commitment, seed,"
            " status, days_per_move, reminder_after_hours, reminder_every_hours,"
            " timeout_action, vacation_days) VALUES (:p, :t, 'jaipur/1',"
            " 'pbem-engine/1', :c, '', 'waiting', NULL, 24, 48, 'claim', 10)"
        ),
        {"p": public_id, "t": now, "c": "ab" * 32},
    )
    game_id = c.execute(
        text("SELECT id FROM games WHERE public_id = :p"), {"p": public_id}
    ).scalar_one()
    c.execute(
        text(
            "INSERT INTO seats (game_id, seat, name, email, key_version, mail_mode,"
            " language, timezone) VALUES (:g, 0, 'Ada', 'ada@example.test', 1, 'each',"
            " 'en', 'UTC'), (:g, 1, 'Bo', 'bo@example.test', 1, :mode, :language, 'UTC')"
        ),
        {"g": game_id, "mode": second_seat[0], "language": second_seat[1]},
    )


def test_0011_gives_existing_seats_and_players_the_default_receipts(fresh_database):
    """Receipts of one's own moves become a setting: rows from before 0011 take the
    default ("replies": a receipt only of a move mailed in), and 0011 goes down again."""
    db = Database(fresh_database())
    now = datetime(2026, 12, 5, tzinfo=UTC)
    try:
        migrate.upgrade(db.engine, "0010")
        with db.engine.begin() as c:
            _old_game_with_two_seats(c, "old1", now, second_seat=("digest", "de"))
            c.execute(
                text(
                    "INSERT INTO players (public_id, email, display_name, created_at,"
                    " session_version, mail_mode, language, timezone, rated_games) VALUES"
                    " ('p1', 'ada@example.test', 'Ada', :now, 1, 'each', 'en', 'UTC', 0)"
                ),
                {"now": now},
            )
        migrate.upgrade(db.engine, "0011")
        with db.engine.connect() as c:
            seats = c.execute(text("SELECT seat, receipts, mail_mode FROM seats ORDER BY seat"))
            assert [tuple(r) for r in seats] == [(0, "replies", "each"), (1, "replies", "digest")]
            assert c.execute(text("SELECT receipts FROM players")).scalar_one() == "replies"
        with db.engine.begin() as c:  # the setting is stored and read back
            c.execute(text("UPDATE seats SET receipts = 'all' WHERE seat = 1"))
            assert c.execute(text("SELECT receipts FROM seats WHERE seat = 1")).scalar() == "all"
        migrate.downgrade(db.engine, "0010")
        assert migrate.current_revision(db.engine) == "0010"
        with db.engine.connect() as c:
            assert c.execute(text("SELECT count(*) FROM seats")).scalar() == 2
        migrate.upgrade(db.engine)
        assert migrate.current_revision(db.engine) == migrate.head_revision()
    finally:
        db.dispose()


def test_0012_adds_the_computers_level_to_seats_empty_for_people(fresh_database):
    """A seat is the computer's when ``bot`` holds its level; seats from before are people's."""
    db = Database(fresh_database())
    now = datetime(2026, 12, 6, tzinfo=UTC)
    try:
        migrate.upgrade(db.engine, "0011")
        with db.engine.begin() as c:
            _old_game_with_two_seats(c, "old2", now, second_seat=("each", "en"))
        migrate.upgrade(db.engine, "0012")
        with db.engine.begin() as c:
            assert [r[0] for r in c.execute(text("SELECT bot FROM seats"))] == [None, None]
            c.execute(text("UPDATE seats SET bot = 'strong' WHERE seat = 1"))
            assert c.execute(text("SELECT bot FROM seats WHERE seat = 1")).scalar() == "strong"
        migrate.downgrade(db.engine, "0011")
        with db.engine.connect() as c:
            assert c.execute(text("SELECT count(*) FROM seats")).scalar() == 2
        migrate.upgrade(db.engine)
        assert migrate.current_revision(db.engine) == migrate.head_revision()
    finally:
        db.dispose()


def test_0014_gives_accounts_made_in_english_and_utc_their_seats_language(fresh_database):
    """An account left at English and UTC takes its newest seat's other language and zone;
    one whose seats are all English and UTC, or that chose otherwise, keeps its own."""
    db = Database(fresh_database())
    now = datetime(2026, 12, 6, tzinfo=UTC)
    try:
        migrate.upgrade(db.engine, "0013")
        with db.engine.begin() as c:
            _old_game_with_two_seats(c, "old3", now, second_seat=("each", "uk"))
            c.execute(text("UPDATE seats SET timezone = 'Europe/Kyiv' WHERE seat = 1"))
            for public_id, email, language in (
                ("p1", "ada@example.test", "en"),
                ("p2", "bo@example.test", "en"),
                ("p3", "cy@example.test", "el"),
            ):
                c.execute(
                    text(
                        "INSERT INTO players (public_id, email, display_name, created_at,"
                        " session_version, mail_mode, language, timezone, rated_games)"
                        " VALUES (:p, :e, 'X', :now, 1, 'each', :l, 'UTC', 0)"
                    ),
                    {"p": public_id, "e": email, "l": language, "now": now},
                )
        migrate.upgrade(db.engine, "0014")
        with db.engine.connect() as c:
            rows = c.execute(text("SELECT email, language, timezone FROM players ORDER BY email"))
            assert [tuple(r) for r in rows] == [
                ("ada@example.test", "en", "UTC"),
                ("bo@example.test", "uk", "Europe/Kyiv"),
                ("cy@example.test", "el", "UTC"),
            ]
        migrate.downgrade(db.engine, "0013")
        migrate.upgrade(db.engine)
        assert migrate.current_revision(db.engine) == migrate.head_revision()
    finally:
        db.dispose()


def test_0015_keeps_the_chain_hash_of_queued_mails_and_a_guard_on_the_access_log(
    fresh_database,
):
    """A mail queued before 0015 gets the chain hash of the move it told of, from the log;
    the access log takes a reduction after 0015, and none again after the downgrade."""
    db = Database(fresh_database())
    now = datetime(2026, 12, 6, tzinfo=UTC)
    try:
        migrate.upgrade(db.engine, "0014")
        with db.engine.begin() as c:
            _old_game_with_two_seats(c, "old3", now, second_seat=("each", "en"))
            game_id = c.execute(text("SELECT id FROM games")).scalar_one()
            c.execute(
                text(
                    "INSERT INTO moves (game_id, n, seat, move, at, hash, position, source)"
                    " VALUES (:g, 1, 0, 'camels', :t, :h, :p, 'web')"
                ),
                {"g": game_id, "t": now, "h": "cd" * 32, "p": "ef" * 32},
            )
            c.execute(
                text(
                    "INSERT INTO outbox (message_id, game_id, seat, kind, to_addr, headers,"
                    " created_at, status, attempts, next_attempt_at, about_n) VALUES"
                    " ('<a@x>', :g, 1, 'your_turn', 'bo@example.test', '{}', :t, 'pending',"
                    " 0, :t, 1), ('<b@x>', :g, 0, 'invitation', 'ada@example.test', '{}',"
                    " :t, 'sent', 1, :t, NULL)"
                ),
                {"g": game_id, "t": now},
            )
            c.execute(
                text(
                    "INSERT INTO access_log (game_id, seat, at, action, ip, user_agent)"
                    " VALUES (:g, 0, :t, 'view', '203.0.113.7', 'Firefox/128.0')"
                ),
                {"g": game_id, "t": now},
            )
        migrate.upgrade(db.engine, "0015")
        reduce = "UPDATE access_log SET ip = '203.0.x.x', user_agent = 'Firefox', reduced_at = :t"
        with db.engine.begin() as c:
            hashes = c.execute(text("SELECT message_id, chain_hash FROM outbox ORDER BY id"))
            assert [tuple(r) for r in hashes] == [("<a@x>", "cd" * 32), ("<b@x>", None)]
            c.execute(text(reduce), {"t": now})
            assert c.execute(text("SELECT ip FROM access_log")).scalar_one() == "203.0.x.x"
        migrate.downgrade(db.engine, "0014")
        with pytest.raises(DBAPIError, match="append-only"), db.engine.begin() as c:
            c.execute(text("UPDATE access_log SET ip = NULL"))
        with db.engine.connect() as c:
            assert c.execute(text("SELECT count(*) FROM outbox")).scalar() == 2
        migrate.upgrade(db.engine)
        assert migrate.current_revision(db.engine) == migrate.head_revision()
    finally:
        db.dispose()
