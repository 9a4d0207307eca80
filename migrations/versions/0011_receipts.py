"""Receipts of one's own moves become a setting, of each seat and of each player.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05

A move used to bring both players a mail: "your turn" to the one to move and
"move N recorded" to the one who moved. The receipt is now sent only when asked
for: by default ("replies") for a move made by replying to a mail, so a player who
mailed a move hears that it was read; "all" for every move, "none" for none.
Existing seats and players start with the default. No mail queued before is
touched: a receipt already in the outbox is written and sent as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # seats and players only: no batch rebuild of moves or access_log (0010's triggers stay)
    for table in ("seats", "players"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(
                sa.Column("receipts", sa.String(8), nullable=False, server_default="replies")
            )


def downgrade() -> None:
    for table in ("players", "seats"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("receipts")
