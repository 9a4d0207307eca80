"""Addresses whose mail bounces.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07

``bouncing`` holds each address (casefolded) that a permanent failure or a delivery
status notification showed to refuse mail: mail queued to it is held, not sent and not
lost, until the address is verified again or its player moves to another. An outbox
row whose mail bounced gets the status ``bounced`` (a string: no schema change).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bouncing",
        sa.Column("address", sa.String(254), primary_key=True),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outbox_id", sa.Integer, nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("bouncing")
