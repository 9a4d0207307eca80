"""Players: sign-in links, challenges, rematches, ratings; account events in the access log.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02

A player is a verified email address. Seats keep their own name and email, so a
seat link works with no account at all; a signed-in player owns every seat whose
email is theirs. Ratings on ``players`` are derived from finished games
(``pbem ratings rebuild`` recomputes them).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.String(16), nullable=False, unique=True),
        sa.Column("email", sa.String(254), nullable=False, unique=True),
        sa.Column("display_name", sa.String(80), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("verified_at", TZ, nullable=True),
        sa.Column("session_version", sa.Integer, nullable=False, server_default="1"),
        sa.Column("mail_mode", sa.String(12), nullable=False, server_default="each"),
        sa.Column("language", sa.String(8), nullable=False, server_default="en"),
        sa.Column("timezone", sa.String(64), nullable=False, server_default="UTC"),
        sa.Column("rating_mu", sa.Float, nullable=True),
        sa.Column("rating_sigma", sa.Float, nullable=True),
        sa.Column("rated_games", sa.Integer, nullable=False, server_default="0"),
        sa.Column("erased_at", TZ, nullable=True),
    )
    op.create_table(
        "sign_in_links",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("email", sa.String(254), nullable=False, index=True),
        sa.Column("new_email", sa.String(254), nullable=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
        sa.Column("ip", sa.String(64), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("expires_at", TZ, nullable=False),
        sa.Column("used_at", TZ, nullable=True),
    )
    op.create_table(
        "challenges",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.String(16), nullable=False, unique=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("days_per_move", sa.Integer, nullable=True),
        sa.Column("starter", sa.String(12), nullable=False),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=True),
        sa.Column("accepted_by", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
    )
    # an indexed integer, not a foreign key: SQLite cannot add a constrained column, and
    # rebuilding ``games`` under enforced foreign keys is what migration 0003 avoids too
    op.add_column("games", sa.Column("rematch_of", sa.Integer, nullable=True))
    op.create_index("games_rematch_of", "games", ["rematch_of"], unique=True)
    op.add_column("games", sa.Column("rated_at", TZ, nullable=True))
    with op.batch_alter_table("access_log") as batch:
        batch.alter_column("game_id", existing_type=sa.Integer, nullable=True)
        batch.add_column(sa.Column("player_id", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("access_log") as batch:
        batch.drop_column("player_id")
    op.drop_index("games_rematch_of", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rated_at")
        batch.drop_column("rematch_of")
    op.drop_table("challenges")
    op.drop_table("sign_in_links")
    op.drop_table("players")
