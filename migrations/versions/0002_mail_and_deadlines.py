"""Deadlines, reminders, vacations, mail preferences, move messages, inbound mail.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02

``outbox.dedupe_key`` is UNIQUE so a scheduler job that runs twice (or on two
nodes) cannot queue the same reminder twice; ``inbound_mail.message_id`` is
UNIQUE so a reply delivered twice is applied once. Adding ``moves.message``
is an ALTER TABLE, which the append-only triggers (row UPDATE/DELETE) allow.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("games", sa.Column("days_per_move", sa.Integer, nullable=True))
    op.add_column(
        "games", sa.Column("reminder_after_hours", sa.Integer, nullable=False, server_default="24")
    )
    op.add_column(
        "games", sa.Column("reminder_every_hours", sa.Integer, nullable=False, server_default="48")
    )
    op.add_column(
        "games", sa.Column("timeout_action", sa.String(8), nullable=False, server_default="claim")
    )
    op.add_column(
        "games", sa.Column("vacation_days", sa.Integer, nullable=False, server_default="10")
    )
    op.add_column(
        "seats", sa.Column("mail_mode", sa.String(8), nullable=False, server_default="each")
    )
    op.add_column("moves", sa.Column("message", sa.Text, nullable=True))
    op.add_column("outbox", sa.Column("dedupe_key", sa.String(200), nullable=True))
    op.create_index("outbox_dedupe_key", "outbox", ["dedupe_key"], unique=True)
    op.create_table(
        "vacations",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("seat_id", sa.Integer, sa.ForeignKey("seats.id"), nullable=False, index=True),
        sa.Column("starts_at", TZ, nullable=False),
        sa.Column("ends_at", TZ, nullable=False),
    )
    op.create_table(
        "inbound_mail",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("message_id", sa.String(300), nullable=False, unique=True),
        sa.Column("received_at", TZ, nullable=False),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("detail", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("inbound_mail")
    op.drop_table("vacations")
    op.drop_index("outbox_dedupe_key", table_name="outbox")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("dedupe_key")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("mail_mode")
    with op.batch_alter_table("games") as batch:
        for column in (
            "vacation_days",
            "timeout_action",
            "reminder_every_hours",
            "reminder_after_hours",
            "days_per_move",
        ):
            batch.drop_column(column)
    # moves.message stays on SQLite: dropping a column there rebuilds the table, which the
    # append-only triggers exist to prevent; on PostgreSQL it is a plain DROP COLUMN.
    if op.get_bind().dialect.name != "sqlite":
        op.drop_column("moves", "message")
