"""Rate limits shared by every process, and sessions that end on sign-out.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04

``rate_limits`` holds the windows of ``services.core.limits`` (the ``limits``
library counts, this table stores), so several gunicorn workers and machines
that share only the database share the limits too. ``sign_in_links.signed_out_at``
ends the session a used link opened: a cookie replayed after "sign out" is refused.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_limits",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("hits", sa.Integer, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_rate_limits_expires_at", "rate_limits", ["expires_at"])
    with op.batch_alter_table("sign_in_links") as batch:
        batch.add_column(sa.Column("signed_out_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sign_in_links") as batch:
        batch.drop_column("signed_out_at")
    op.drop_index("ix_rate_limits_expires_at", table_name="rate_limits")
    op.drop_table("rate_limits")
