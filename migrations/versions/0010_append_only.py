"""The move log and the access log refuse every statement that would rewrite them.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05

0001's triggers refuse UPDATE and DELETE on ``moves``, but on SQLite
``REPLACE INTO`` / ``INSERT OR REPLACE`` deletes the row it collides with without
firing delete triggers (unless ``recursive_triggers`` is on, a per-connection
setting no admin shell would have). A BEFORE INSERT trigger now refuses any insert
that would meet an existing row by its primary key or by ``UNIQUE(game_id, n)``,
whatever its conflict clause. A plain duplicate of move ``n`` (two racing moves) is
refused by it too, as SQLite's ``IntegrityError`` like the unique key's own, which
is what ``services.play.moves`` turns into "the game has moved on". On PostgreSQL there
is no REPLACE, and ``ON CONFLICT DO UPDATE`` fires 0001's UPDATE trigger.

``access_log`` is the evidence an audit of a disputed turn reads, and the
application only ever inserts into it: it gets the same triggers as ``moves``.

Triggers bind every role, but an owner may disable or drop them: on PostgreSQL the
application runs as a role that owns nothing (``pbem db grant``, ``store/roles.py``).
On SQLite whoever holds the file holds everything; the triggers keep statements
honest, not the file. A batch migration (``batch_alter_table``) of either table
rebuilds it on SQLite and loses its triggers: such a migration must create them again
(``tests/store/test_append_only.py`` checks that they are all there at head).
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

# In a BEFORE INSERT trigger an id left to SQLite reads as -1, which no row has.
SQLITE_TRIGGERS = {
    "moves_no_replace": """CREATE TRIGGER moves_no_replace BEFORE INSERT ON moves
       WHEN EXISTS (SELECT 1 FROM moves WHERE id = NEW.id)
         OR EXISTS (SELECT 1 FROM moves WHERE game_id = NEW.game_id AND n = NEW.n)
       BEGIN SELECT RAISE(ABORT,
         'the move log is append-only: an INSERT over an existing move refused'); END""",
    "access_log_no_update": """CREATE TRIGGER access_log_no_update BEFORE UPDATE ON access_log
       BEGIN SELECT RAISE(ABORT, 'the access log is append-only: UPDATE refused'); END""",
    "access_log_no_delete": """CREATE TRIGGER access_log_no_delete BEFORE DELETE ON access_log
       BEGIN SELECT RAISE(ABORT, 'the access log is append-only: DELETE refused'); END""",
    "access_log_no_replace": """CREATE TRIGGER access_log_no_replace BEFORE INSERT ON access_log
       WHEN EXISTS (SELECT 1 FROM access_log WHERE id = NEW.id)
       BEGIN SELECT RAISE(ABORT,
         'the access log is append-only: an INSERT over an existing row refused'); END""",
}
POSTGRES_TRIGGERS = [
    """CREATE FUNCTION access_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         RAISE EXCEPTION 'the access log is append-only: % refused', TG_OP
           USING ERRCODE = 'integrity_constraint_violation';
       END $$""",
    """CREATE TRIGGER access_log_no_update_delete BEFORE UPDATE OR DELETE ON access_log
       FOR EACH ROW EXECUTE FUNCTION access_log_append_only()""",
    """CREATE TRIGGER access_log_no_truncate BEFORE TRUNCATE ON access_log
       FOR EACH STATEMENT EXECUTE FUNCTION access_log_append_only()""",
]


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in SQLITE_TRIGGERS.values():
            op.execute(statement)
    else:
        for statement in POSTGRES_TRIGGERS:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in reversed(SQLITE_TRIGGERS):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    else:
        op.execute("DROP TRIGGER IF EXISTS access_log_no_truncate ON access_log")
        op.execute("DROP TRIGGER IF EXISTS access_log_no_update_delete ON access_log")
        op.execute("DROP FUNCTION IF EXISTS access_log_append_only()")
