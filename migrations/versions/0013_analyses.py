"""The analysis of finished games, kept apart from the log.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06

``analyses`` says how far the analysis of a finished game has got (one row a game: its
key is what two schedulers racing to start the same game collide on); ``analysis_moves``
holds one row per logged move (``UNIQUE(game_id, n)``: two workers racing on the same
slice collide there). Neither is part of the record or of the log: both can be deleted
and recomputed (``pbem analyse``), and the downgrade simply drops them.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("progress", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "analysis_moves",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("before", sa.Float, nullable=True),
        sa.Column("after", sa.Float, nullable=True),
        sa.Column("best", sa.String(120), nullable=True),
        sa.Column("drop", sa.Float, nullable=True),
        sa.Column("label", sa.String(12), nullable=True),
        sa.UniqueConstraint("game_id", "n", name="uq_analysis_moves_game_n"),
    )


def downgrade() -> None:
    op.drop_table("analysis_moves")
    op.drop_table("analyses")
