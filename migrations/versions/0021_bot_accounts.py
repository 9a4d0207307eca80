"""Bot accounts: a player row marked as a bot, owned by a person, with an API token.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-07

A bot account (docs/bots.md) is a player whose address is in the reserved
``bots.invalid`` domain (never mailed); ``bot_owner_id`` names the person who registered
it (and marks the row as a bot), ``bot_token_hash`` holds the SHA-256 of its API token
(the token itself is shown once and never stored). Rotating the token replaces the hash;
revoking it clears it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("bot_owner_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("bot_token_hash", sa.String(64), nullable=True))
        batch.create_foreign_key("fk_players_bot_owner", "players", ["bot_owner_id"], ["id"])
        batch.create_unique_constraint("uq_players_bot_token_hash", ["bot_token_hash"])
        batch.create_index("ix_players_bot_owner_id", ["bot_owner_id"])


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_index("ix_players_bot_owner_id")
        batch.drop_constraint("uq_players_bot_token_hash", type_="unique")
        batch.drop_constraint("fk_players_bot_owner", type_="foreignkey")
        batch.drop_column("bot_token_hash")
        batch.drop_column("bot_owner_id")
