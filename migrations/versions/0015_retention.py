"""Retention and erasure: sent mails' words pruned, the access log's client fields reduced.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06

``outbox.chain_hash`` keeps the chain hash of the move a mail told of (filled here from
the log for the rows queued before), so a row whose words are pruned (``pruned_at``)
still says what it committed to; ``outbox_prune`` finds the sent rows not pruned yet.

``access_log.reduced_at`` marks a row whose client fields were reduced: the address to
its network (``203.0.x.x``), the user agent to its browser family, addresses in the
detail taken out (``services/core/privacy.py``). The access log stays append-only with one
narrow exception: an UPDATE that sets ``reduced_at`` on a row that had none, changes no
other column than ``ip``, ``user_agent`` and ``detail``, and leaves ``ip`` empty or
masked. A reduced row is frozen again; DELETE, TRUNCATE and every other UPDATE are
refused as before, and the move log's triggers are not touched. The columns are added
with ADD COLUMN, which does not rebuild the table on SQLite, so 0010's other triggers
stay.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)

#: The columns a reduction may not change (every one but the client fields).
KEPT = ("id", "game_id", "player_id", "seat", "at", "action", "seen_n", "key_version")
#: What a reduced ``ip`` may be: nothing, or a network masked as ``services/core/privacy.py`` does.
MASKED = "(NEW.ip IS NULL OR NEW.ip LIKE '%.x.x' OR NEW.ip LIKE '%:…')"

SQLITE_NO_UPDATE = """CREATE TRIGGER access_log_no_update BEFORE UPDATE ON access_log
   WHEN NOT (OLD.reduced_at IS NULL AND NEW.reduced_at IS NOT NULL AND {kept} AND {masked})
   BEGIN SELECT RAISE(ABORT, 'the access log is append-only: UPDATE refused'); END""".format(
    kept=" AND ".join(f"NEW.{c} IS OLD.{c}" for c in KEPT), masked=MASKED
)
SQLITE_NO_UPDATE_0010 = """CREATE TRIGGER access_log_no_update BEFORE UPDATE ON access_log
   BEGIN SELECT RAISE(ABORT, 'the access log is append-only: UPDATE refused'); END"""

POSTGRES_FUNCTION = """CREATE OR REPLACE FUNCTION access_log_append_only()
   RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'UPDATE' THEN
       IF OLD.reduced_at IS NULL AND NEW.reduced_at IS NOT NULL
          AND ({kept_new}) IS NOT DISTINCT FROM ({kept_old}) AND {masked} THEN
         RETURN NEW;
       END IF;
     END IF;
     RAISE EXCEPTION 'the access log is append-only: % refused', TG_OP
       USING ERRCODE = 'integrity_constraint_violation';
   END $$""".format(
    kept_new=", ".join(f"NEW.{c}" for c in KEPT),
    kept_old=", ".join(f"OLD.{c}" for c in KEPT),
    masked=MASKED,
)
POSTGRES_FUNCTION_0010 = """CREATE OR REPLACE FUNCTION access_log_append_only()
   RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'the access log is append-only: % refused', TG_OP
       USING ERRCODE = 'integrity_constraint_violation';
   END $$"""


def upgrade() -> None:
    op.add_column("outbox", sa.Column("chain_hash", sa.String(64), nullable=True))
    op.add_column("outbox", sa.Column("pruned_at", TZ, nullable=True))
    op.create_index("outbox_prune", "outbox", ["pruned_at", "sent_at"])
    op.execute(
        "UPDATE outbox SET chain_hash = (SELECT moves.hash FROM moves"
        " WHERE moves.game_id = outbox.game_id AND moves.n = outbox.about_n)"
        " WHERE about_n IS NOT NULL"
    )
    op.add_column("access_log", sa.Column("reduced_at", TZ, nullable=True))
    op.create_index("access_log_reduce", "access_log", ["reduced_at", "at"])
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER access_log_no_update")
        op.execute(SQLITE_NO_UPDATE)
    else:
        op.execute(POSTGRES_FUNCTION)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER access_log_no_update")
        op.execute(SQLITE_NO_UPDATE_0010)
    else:
        op.execute(POSTGRES_FUNCTION_0010)
    op.drop_index("access_log_reduce", "access_log")
    # SQLite drops a column in place (3.35+) when nothing refers to it: no table rebuild,
    # so the access log keeps its triggers
    op.drop_column("access_log", "reduced_at")
    op.drop_index("outbox_prune", "outbox")
    op.drop_column("outbox", "pruned_at")
    op.drop_column("outbox", "chain_hash")
