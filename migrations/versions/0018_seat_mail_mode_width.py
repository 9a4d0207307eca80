"""A seat's mail mode wide enough for "invitations".

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07

The account's mail modes include "invitations" (no mail but invitations), which the
account settings and a digest's one-click unsubscribe write on every seat of the
account; ``seats.mail_mode`` was 8 characters, which PostgreSQL enforces. It becomes 12,
as ``players.mail_mode`` is. SQLite keeps no length, so its table is left as it is (a
rebuild would gain nothing).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("seats", "mail_mode", type_=sa.String(12), existing_type=sa.String(8))


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.execute("UPDATE seats SET mail_mode = 'digest' WHERE mail_mode = 'invitations'")
        op.alter_column("seats", "mail_mode", type_=sa.String(8), existing_type=sa.String(12))
