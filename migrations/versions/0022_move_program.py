"""The program that chose each of the computer's moves: ``moves.program``.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-07

A computer move is reproduced from the published seed with the version of pbem that
played it (docs/computer.md, "Fairness"); each such move now names it (``pbem 0.3.0``), and
the game's record carries the names (docs/record-format.md §4.2, ``computer``). A person's
move, and a computer move logged before this revision, have none.

A plain ADD COLUMN (not a batch copy of the table): the append-only triggers of ``moves``
(migrations 0001 and 0010) stay as they are; they refuse UPDATE and DELETE, not a column.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("moves", sa.Column("program", sa.String(40), nullable=True))


def downgrade() -> None:
    op.drop_column("moves", "program")
