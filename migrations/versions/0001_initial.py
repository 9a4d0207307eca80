"""Games, seats, the append-only move log, the access log and the outbox.

Revision ID: 0001
Revises:
Create Date: 2026-12-02

The triggers make the log append-only in the database itself (docs/architecture.md,
invariant 2), so no code path, admin shell or future bug can rewrite a move.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)

SQLITE_TRIGGERS = [
    """CREATE TRIGGER moves_no_update BEFORE UPDATE ON moves
       BEGIN SELECT RAISE(ABORT, 'the move log is append-only: UPDATE refused'); END""",
    """CREATE TRIGGER moves_no_delete BEFORE DELETE ON moves
       BEGIN SELECT RAISE(ABORT, 'the move log is append-only: DELETE refused'); END""",
]
POSTGRES_TRIGGERS = [
    """CREATE FUNCTION moves_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         RAISE EXCEPTION 'the move log is append-only: % refused', TG_OP
           USING ERRCODE = 'integrity_constraint_violation';
       END $$""",
    """CREATE TRIGGER moves_no_update_delete BEFORE UPDATE OR DELETE ON moves
       FOR EACH ROW EXECUTE FUNCTION moves_append_only()""",
    """CREATE TRIGGER moves_no_truncate BEFORE TRUNCATE ON moves
       FOR EACH STATEMENT EXECUTE FUNCTION moves_append_only()""",
]


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.String(16), nullable=False, unique=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("rules", sa.String(32), nullable=False),
        sa.Column("engine", sa.String(32), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("first_player", sa.Integer, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("finished_at", TZ, nullable=True),
        sa.Column("integrity_error", sa.Text, nullable=True),
    )
    op.create_table(
        "seats",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("email", sa.String(254), nullable=False, index=True),
        sa.Column("key_version", sa.Integer, nullable=False),
        sa.UniqueConstraint("game_id", "seat"),
        sa.CheckConstraint("seat IN (0, 1)", name="seat_is_0_or_1"),
    )
    op.create_table(
        "moves",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("move", sa.String(120), nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("position", sa.String(64), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.UniqueConstraint("game_id", "n", name="moves_game_n_key"),
        sa.CheckConstraint("seat IN (0, 1)", name="move_seat_is_0_or_1"),
    )
    op.create_table(
        "access_log",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("at", TZ, nullable=False),
        sa.Column("action", sa.String(24), nullable=False),
        sa.Column("seen_n", sa.Integer, nullable=True),
        sa.Column("key_version", sa.Integer, nullable=True),
        sa.Column("ip", sa.String(64), nullable=True),
        sa.Column("user_agent", sa.String(300), nullable=True),
        sa.Column("detail", sa.Text, nullable=True),
    )
    op.create_index("access_log_game_at", "access_log", ["game_id", "at"])
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("message_id", sa.String(200), nullable=False, unique=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("to_addr", sa.String(320), nullable=False),
        sa.Column("subject", sa.String(300), nullable=False),
        sa.Column("text_body", sa.Text, nullable=False),
        sa.Column("html_body", sa.Text, nullable=False),
        sa.Column("headers", sa.JSON, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", TZ, nullable=False),
        sa.Column("sent_at", TZ, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
    )
    op.create_index("outbox_due", "outbox", ["status", "next_attempt_at"])
    dialect = op.get_bind().dialect.name
    for statement in SQLITE_TRIGGERS if dialect == "sqlite" else POSTGRES_TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS moves_no_update")
        op.execute("DROP TRIGGER IF EXISTS moves_no_delete")
    else:
        op.execute("DROP TRIGGER IF EXISTS moves_no_truncate ON moves")
        op.execute("DROP TRIGGER IF EXISTS moves_no_update_delete ON moves")
        op.execute("DROP FUNCTION IF EXISTS moves_append_only()")
    op.drop_index("outbox_due", table_name="outbox")
    op.drop_table("outbox")
    op.drop_index("access_log_game_at", table_name="access_log")
    op.drop_table("access_log")
    op.drop_table("moves")
    op.drop_table("seats")
    op.drop_table("games")
