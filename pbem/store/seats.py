"""The seats' recorder: the seats of an address, and the seats a daily digest goes to."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from ..engine import Status
from .models import Game, MoveRow, Seat


def of_player(session: Session, email: str) -> list[Seat]:
    """Every seat written to this (normalised) address, whatever its case was then."""
    return list(session.scalars(select(Seat).where(func.lower(Seat.email) == email)))


def with_address(session: Session, email: str) -> list[Seat]:
    """The seats written to exactly this address (a seat's "all my games" setting)."""
    return list(session.scalars(select(Seat).where(Seat.email == email)))


def digest_readers(session: Session) -> list[Seat]:
    """The seats that asked for one mail a day, in running games that are not frozen."""
    return list(
        session.scalars(
            select(Seat)
            .join(Game)
            .where(
                Seat.mail_mode == "digest",
                Game.status == Status.IN_PROGRESS.value,
                Game.integrity_error.is_(None),
            )
        )
    )


def computer_seats(session: Session, since: datetime | None = None) -> list[tuple[int, int, str]]:
    """(game id, seat, level) of the computer's seats in running games that are not frozen;
    with ``since``, only games dealt or moved in since then (the quick job's short list)."""
    query = (
        select(Seat.game_id, Seat.seat, Seat.bot)
        .join(Game)
        .where(
            Seat.bot.is_not(None),
            Game.status == Status.IN_PROGRESS.value,
            Game.integrity_error.is_(None),
        )
        .order_by(Seat.game_id)
    )
    if since is not None:
        moved = select(MoveRow.id).where(MoveRow.game_id == Game.id, MoveRow.at >= since)
        query = query.where(or_(Game.dealt_at >= since, moved.exists()))
    return [(g, s, level) for g, s, level in session.execute(query) if level is not None]
