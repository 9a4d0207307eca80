"""The players' recorder: a player by address or public id, sign-in links and sessions.

A sign-in link is stored only as its SHA-256; a browser's session is the link that
signed it in (``SignInLink.id``), ended on the server by ``signed_out_at``.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Row, select, update
from sqlalchemy.orm import Session

from .models import Player, SignInLink


def by_email(session: Session, email: str) -> Player | None:
    """The player who owns this (normalised) address, erased or not."""
    return session.scalars(select(Player).where(Player.email == email)).one_or_none()


def by_public_id(session: Session, public_id: str) -> Player | None:
    return session.scalars(select(Player).where(Player.public_id == public_id)).one_or_none()


def link_by_hash(session: Session, token_hash: str, *, lock: bool = False) -> SignInLink | None:
    """The sign-in link with this hash (``lock``: locked until the transaction ends)."""
    query = select(SignInLink).where(SignInLink.token_hash == token_hash)
    return session.scalars(query.with_for_update() if lock else query).one_or_none()


def use_link(session: Session, link_id: int, now: datetime) -> bool:
    """Mark an unused link used; False if another request used it first."""
    used = session.execute(
        update(SignInLink)
        .where(SignInLink.id == link_id, SignInLink.used_at.is_(None))
        .values(used_at=now)
    )
    return bool(used.rowcount == 1)  # type: ignore[attr-defined]


def with_session(
    session: Session, player_id: int, session_id: int
) -> Row[tuple[Player, datetime | None]] | None:
    """The player and when the browser's session ``session_id`` was signed out (if it was)."""
    return session.execute(  # type: ignore[return-value]
        select(Player, SignInLink.signed_out_at)
        .join(SignInLink, SignInLink.player_id == Player.id)
        .where(Player.id == player_id, SignInLink.id == session_id)
    ).one_or_none()
