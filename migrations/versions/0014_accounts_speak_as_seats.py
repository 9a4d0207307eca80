"""Accounts made before this speak as their seats do.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06

An account used to be made in English and UTC whatever its seats said, and then sign-in
mails came in English and "my games" told times in UTC. Accounts are now made in the
language and zone of their first seat and follow a seat whose link changes them. An
account still at English and UTC whose address has a seat in another language or zone
takes those of its newest such seat: a player who had chosen English and UTC in the
settings had, until now, had them written to every seat too. The downgrade leaves the
values as they are (they are valid either way).
"""

from __future__ import annotations

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_NEWEST_SEAT = (
    "SELECT s.{column} FROM seats s WHERE lower(s.email) = players.email AND s.bot IS NULL"
    " AND (s.language <> 'en' OR s.timezone <> 'UTC') ORDER BY s.id DESC LIMIT 1"
)


def upgrade() -> None:
    op.execute(
        "UPDATE players SET"
        f" language = ({_NEWEST_SEAT.format(column='language')}),"
        f" timezone = ({_NEWEST_SEAT.format(column='timezone')})"
        " WHERE language = 'en' AND timezone = 'UTC' AND erased_at IS NULL"
        f" AND EXISTS ({_NEWEST_SEAT.format(column='id')})"
    )


def downgrade() -> None:
    pass
