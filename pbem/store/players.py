"""The players' recorder: a player by address or public id, sign-in links and sessions.

A sign-in link is stored only as its SHA-256; a browser's session is the link that
signed it in (``SignInLink.id``), ended on the server by ``signed_out_at``.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Row, func, or_, select, update
from sqlalchemy.orm import Session

from .db import rowcount
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
    return bool(rowcount(used) == 1)


def with_session(
    session: Session, player_id: int, session_id: int
) -> Row[Player, datetime | None] | None:
    """The player and when the browser's session ``session_id`` was signed out (if it was)."""
    return session.execute(
        select(Player, SignInLink.signed_out_at)
        .join(SignInLink, SignInLink.player_id == Player.id)
        .where(Player.id == player_id, SignInLink.id == session_id)
    ).one_or_none()


def link_addresses(session: Session, player_id: int) -> tuple[set[str], set[str]]:
    """The addresses the player's links were for: those they held (signed in with, or
    confirmed as their new one), and those they asked for and never confirmed."""
    held: set[str] = set()
    asked: set[str] = set()
    rows = session.execute(
        select(
            SignInLink.purpose, SignInLink.email, SignInLink.new_email, SignInLink.used_at
        ).where(SignInLink.player_id == player_id)
    )
    for purpose, email, new_email, used_at in rows:
        if purpose != "change-email":
            held.add(email.casefold())
        elif new_email:
            (held if used_at is not None else asked).add(new_email.casefold())
    return held, asked - held


def owned_by_others(session: Session, player_id: int, addresses: set[str]) -> set[str]:
    """Which of these addresses another player's account holds now."""
    if not addresses:
        return set()
    return set(
        session.scalars(
            select(Player.email).where(Player.email.in_(addresses), Player.id != player_id)
        )
    )


def forget_links(session: Session, player_id: int, addresses: list[str], placeholder: str) -> None:
    """An erased account's links: every one of its addresses, and every address on a
    link it asked for, becomes the placeholder, and those links keep no IP address."""
    for column in (SignInLink.email, SignInLink.new_email):
        session.execute(
            update(SignInLink)
            .where(
                column.is_not(None),
                or_(func.lower(column).in_(addresses), SignInLink.player_id == player_id),
            )
            .values({column: placeholder})
            .execution_options(synchronize_session=False)
        )
    session.execute(
        update(SignInLink)
        .where(or_(SignInLink.player_id == player_id, SignInLink.email == placeholder))
        .values(ip=None)
        .execution_options(synchronize_session=False)
    )


def forget_link_ips(session: Session, cutoff: datetime, limit: int) -> int:
    """Drop the IP address of up to ``limit`` links made before ``cutoff``. Returns how many."""
    ids = list(
        session.scalars(
            select(SignInLink.id)
            .where(SignInLink.ip.is_not(None), SignInLink.created_at < cutoff)
            .order_by(SignInLink.id)
            .limit(limit)
        )
    )
    if ids:
        session.execute(
            update(SignInLink)
            .where(SignInLink.id.in_(ids))
            .values(ip=None)
            .execution_options(synchronize_session=False)
        )
    return len(ids)


#: The reserved domain (RFC 2606) of every bot account's address: the outbox never
#: queues mail to ``.invalid`` (``outbox.undeliverable``), so no mail goes to a bot's seat.
BOT_DOMAIN = "bots.invalid"


def bot_address(public_id: str) -> str:
    """A new bot account's address: what a person types to invite it."""
    return f"bot-{public_id}@{BOT_DOMAIN}"


def is_bot_address(email: str) -> bool:
    """Whether a seat's or a player's address is a bot account's: the one test of a bot."""
    return email.rpartition("@")[2].rstrip(".").casefold() == BOT_DOMAIN


def by_bot_token_hash(session: Session, token_hash: str) -> Player | None:
    """The bot whose API token has this hash (a revoked token's hash is gone)."""
    return session.scalars(
        select(Player).where(
            Player.bot_token_hash == token_hash,
            Player.bot_owner_id.is_not(None),
            Player.erased_at.is_(None),
        )
    ).one_or_none()


def bots_of(session: Session, owner_id: int) -> list[Player]:
    """The bot accounts a person registered, oldest first."""
    return list(
        session.scalars(
            select(Player)
            .where(Player.bot_owner_id == owner_id, Player.erased_at.is_(None))
            .order_by(Player.id)
        )
    )
