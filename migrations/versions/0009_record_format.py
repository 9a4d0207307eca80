"""Each game remembers the record format its log was written in.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05

Version 2 of the record (docs/record-format.md §6) keys the position digests with the
seed and starts the hash chain from the game's header. A log is hashed once, when each
move is written, so a game keeps the format it started with: every game that exists
before this revision is ``jaipur-record/1``; new games are ``jaipur-record/2``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "games",
        sa.Column(
            "record_format",
            sa.String(32),
            nullable=False,
            server_default="jaipur-record/1",
        ),
    )


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite 3.35+ has it): a batch rebuild of ``games`` would copy a
    # table that the move log and the seats point at, and fail their foreign keys.
    op.execute("ALTER TABLE games DROP COLUMN record_format")
