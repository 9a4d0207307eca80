"""The outbox keeps a recipient's name apart from the address; stored names are made safe.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05

A ``To`` header was written as the string ``"<name> <<address>>"`` and parsed again
when the mail was sent, so a name such as ``Bob <other@example.net>, Bob`` sent a
seat's mail, link and hand included, to another address. Now the outbox keeps the bare
address in ``to_addr`` and the name in ``to_name``, and the header is built from the two
as an address object. Rows queued before are split here.

Names were only trimmed when they entered; now they are checked (``engine.names``).
Names stored before that which the check refuses (control characters, encoded words,
angle brackets) are rewritten with what it keeps, so no stored name can break a mail.
"""

from __future__ import annotations

from email.utils import parseaddr

import sqlalchemy as sa
from alembic import op

from pbem.engine.names import name_problem, sanitized

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("to_name", sa.String(200), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, to_addr FROM outbox WHERE to_addr LIKE '%<%'"))
    for row_id, to_addr in rows.fetchall():
        name, address = _split(to_addr)
        bind.execute(
            sa.text("UPDATE outbox SET to_addr = :a, to_name = :n WHERE id = :id"),
            {"a": address, "n": name, "id": row_id},
        )
    for table, column in (("seats", "name"), ("players", "display_name")):
        found = bind.execute(sa.text(f"SELECT id, {column} FROM {table}")).fetchall()
        for row_id, name in found:
            if name_problem(name) is not None:
                bind.execute(
                    sa.text(f"UPDATE {table} SET {column} = :n WHERE id = :id"),
                    {"n": sanitized(name), "id": row_id},
                )


def _split(to_addr: str) -> tuple[str | None, str]:
    """``Name <a@b>`` as written by 0006's code: the address is the last ``<…>``."""
    head, sep, tail = to_addr.rpartition("<")
    if sep and tail.endswith(">") and "@" in tail:
        return (sanitized(head.strip(), "") or None), tail[:-1].strip()
    return None, parseaddr(to_addr)[1] or to_addr


def downgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.text("SELECT id, to_addr, to_name FROM outbox WHERE to_name IS NOT NULL")
    )
    for row_id, to_addr, to_name in rows.fetchall():
        bind.execute(
            sa.text("UPDATE outbox SET to_addr = :a WHERE id = :id"),
            {"a": f"{to_name} <{to_addr}>"[:320], "id": row_id},
        )
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("to_name")
