"""A seat may be the computer's: ``seats.bot`` holds its level (NULL for a person).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06

A game against the computer has one seat played by ``pbem.ai`` at a chosen level
(easy, normal, strong). The scheduler plays that seat's moves through the same use
case as a person's, with source ``bot``; no link opens it and no mail goes to it.
Existing seats are people's: the column is added empty.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("bot", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("bot")
