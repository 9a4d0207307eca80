"""The seats' recorder: the seats of an address, and the seats a daily digest goes to."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..engine import Status
from .models import Game, Seat


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
