"""The analysis of uploaded record files, asked for on their replay.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07

``record_analyses`` holds one row per record file someone asked to analyse, keyed by the
file's SHA-256 (two people asking at once collide on it): the file's bytes (the
scheduler that judges it may run on another machine than the web tier that kept the
upload), how far the analysis has got, and its verdicts as JSON. It is never part of a
game: the downgrade simply drops it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "record_analyses",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("record", sa.LargeBinary, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("progress", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("verdicts", sa.Text, nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("record_analyses")
