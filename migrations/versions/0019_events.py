"""Events (tournaments): the event, its entrants, its rounds and each board's game.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-07

``events`` holds an event's rules, the commitment to its seed and the seed (secret
until the event ends); ``event_entrants`` its players (an account or the computer at a
level); ``event_rounds`` each round paired; ``event_pairings`` each board of a round:
two entrants and their ordinary game (``game_id``, the link from a game to its event,
round and board), or one entrant's bye. The downgrade drops the four tables.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.String(16), nullable=False, unique=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("format", sa.String(24), nullable=False),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("days_per_move", sa.Integer, nullable=True),
        sa.Column("max_players", sa.Integer, nullable=False),
        sa.Column("start_mode", sa.String(8), nullable=False),
        sa.Column("starts_at", TIME, nullable=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("access", sa.String(12), nullable=False),
        sa.Column("invitation_hash", sa.String(64), nullable=True),
        sa.Column("creator_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("started_at", TIME, nullable=True),
        sa.Column("finished_at", TIME, nullable=True),
    )
    op.create_table(
        "event_entrants",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
        sa.Column("computer_level", sa.String(8), nullable=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("rating", sa.Float, nullable=True),
        sa.Column("joined_at", TIME, nullable=False),
        sa.Column("withdrawn_at", TIME, nullable=True),
        sa.Column("withdrew_after", sa.Integer, nullable=True),
        sa.UniqueConstraint("event_id", "player_id", name="uq_event_entrant"),
    )
    op.create_index("ix_event_entrants_event_id", "event_entrants", ["event_id"])
    op.create_table(
        "event_rounds",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("started_at", TIME, nullable=False),
        sa.Column("ended_at", TIME, nullable=True),
        sa.UniqueConstraint("event_id", "number", name="uq_event_round"),
    )
    op.create_table(
        "event_pairings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("board", sa.Integer, nullable=False),
        sa.Column("game", sa.Integer, nullable=False, server_default="1"),
        sa.Column("first_id", sa.Integer, sa.ForeignKey("event_entrants.id"), nullable=False),
        sa.Column("second_id", sa.Integer, sa.ForeignKey("event_entrants.id"), nullable=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=True),
        sa.UniqueConstraint("event_id", "round", "board", "game", name="uq_event_board"),
        sa.UniqueConstraint("game_id", name="uq_event_game"),
    )
    op.create_index("ix_event_pairings_event_id", "event_pairings", ["event_id"])


def downgrade() -> None:
    op.drop_table("event_pairings")
    op.drop_table("event_rounds")
    op.drop_table("event_entrants")
    op.drop_table("events")
