"""Each seat's language and time zone (its pages and mails are written in them).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02

Two opponents often read different languages in different time zones, so both
belong to the seat, not to the game. Existing seats take their player's choice
where a player owns the seat's address, English and UTC otherwise.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("language", sa.String(8), nullable=False, server_default="en"))
        batch.add_column(sa.Column("timezone", sa.String(64), nullable=False, server_default="UTC"))
    op.execute(
        "UPDATE seats SET "
        "language = (SELECT p.language FROM players p WHERE p.email = lower(seats.email)), "
        "timezone = (SELECT p.timezone FROM players p WHERE p.email = lower(seats.email)) "
        "WHERE EXISTS (SELECT 1 FROM players p WHERE p.email = lower(seats.email))"
    )


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("timezone")
        batch.drop_column("language")
