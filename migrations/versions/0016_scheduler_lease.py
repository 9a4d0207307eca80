"""The scheduler's lease, and a committed "sending" state for outbox rows.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06

``scheduler_lease`` replaces the PostgreSQL advisory lock (and SQLite's file lock): one
row naming the active scheduler, until when, and a fencing token that grows at each
takeover. It starts empty; the first scheduler inserts its row.

An outbox row is now claimed in a transaction of its own, committed as ``sending``
(with the claim's time and the sender's token) before the relay is spoken to, and
marked sent in a second one. Existing rows keep their status; the new columns start
empty. The downgrade puts a row left ``sending`` back to ``pending``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "scheduler_lease",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("holder", sa.String(200), nullable=False),
        sa.Column("token", sa.Integer, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("sending_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("sending_token", sa.Integer, nullable=True))


def downgrade() -> None:
    op.execute("UPDATE outbox SET status = 'pending' WHERE status = 'sending'")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("sending_token")
        batch.drop_column("sending_at")
    op.drop_table("scheduler_lease")
