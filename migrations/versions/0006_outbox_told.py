"""Mails that tell of a move are queued without their words.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03

A move's two mails were rendered inside the move's transaction: two thirds of
a move's CPU time. Now such a mail is queued as a reference to the log entry it
tells of (``about_n``), and the sender writes its subject and bodies from the
log just before sending it, so they are empty until then. Rows queued before
this revision already hold their words.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("about_n", sa.Integer, nullable=True))
        batch.alter_column("subject", existing_type=sa.String(300), nullable=True)
        batch.alter_column("text_body", existing_type=sa.Text, nullable=True)
        batch.alter_column("html_body", existing_type=sa.Text, nullable=True)


def downgrade() -> None:
    # A server at 0005 cannot write an unwritten mail: refuse rather than lose it.
    bind = op.get_bind()
    unwritten = bind.execute(sa.text("SELECT count(*) FROM outbox WHERE text_body IS NULL"))
    if unwritten.scalar_one():
        raise RuntimeError(
            "the outbox holds mails not yet written; send them (pbem scheduler) before downgrading"
        )
    with op.batch_alter_table("outbox") as batch:
        batch.alter_column("html_body", existing_type=sa.Text, nullable=False)
        batch.alter_column("text_body", existing_type=sa.Text, nullable=False)
        batch.alter_column("subject", existing_type=sa.String(300), nullable=False)
        batch.drop_column("about_n")
