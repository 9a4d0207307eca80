"""Player entropy: the server's committed seed, each seat's contribution, the deal time.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02

A game created on the web waits until both players accept; each acceptance adds
the player's own random bytes, and only then is the seed derived (docs/record-format.md §1.3)
and the game dealt. ``games.seed`` stays NOT NULL and holds '' until the deal:
making it nullable would rebuild the table on SQLite under enforced foreign keys.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("games", sa.Column("server_seed", sa.String(64), nullable=True))
    op.add_column("games", sa.Column("dealt_at", TZ, nullable=True))
    op.add_column("seats", sa.Column("contribution", sa.String(128), nullable=True))
    op.add_column("seats", sa.Column("accepted_at", TZ, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("accepted_at")
        batch.drop_column("contribution")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("dealt_at")
        batch.drop_column("server_seed")
