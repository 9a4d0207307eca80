"""Why an event was cancelled: ``events.cancelled_by``.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-07

An event is cancelled at its start when fewer than two players joined, or, from 0.4.0,
by its organiser before it starts (docs/events.md, "An event's life"); its page and the
players' mail say which. ``too_few`` or ``organiser``; None for an event not cancelled,
and for one cancelled before this revision (then always for too few players).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("events", sa.Column("cancelled_by", sa.String(12), nullable=True))


def downgrade() -> None:
    op.drop_column("events", "cancelled_by")
