"""The challenges' recorder: open challenges, and taking or withdrawing one exactly once.

Taking and withdrawing are conditional UPDATEs (``status = 'open'``), so of two
players racing for a challenge one gets it and the other learns it is gone.
"""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from .db import rowcount
from .models import Challenge


def open_ones(session: Session, limit: int = 100) -> list[Challenge]:
    """The open challenges, newest first."""
    return list(
        session.scalars(
            select(Challenge)
            .where(Challenge.status == "open")
            .order_by(Challenge.created_at.desc())
            .limit(limit)
        )
    )


def by_public_id(session: Session, public_id: str) -> Challenge | None:
    return session.scalars(select(Challenge).where(Challenge.public_id == public_id)).one_or_none()


def take(session: Session, challenge_id: int, player_id: int) -> bool:
    """Mark an open challenge accepted by ``player_id``; False if it is not open any more."""
    taken = session.execute(
        update(Challenge)
        .where(Challenge.id == challenge_id, Challenge.status == "open")
        .values(status="accepted", accepted_by=player_id)
    )
    return bool(rowcount(taken) == 1)


def set_game(session: Session, public_id: str, game_id: int) -> None:
    """Note the game an accepted challenge created."""
    session.execute(
        update(Challenge).where(Challenge.public_id == public_id).values(game_id=game_id)
    )


def withdraw(session: Session, public_id: str, player_id: int) -> bool:
    """Withdraw the player's own open challenge; False if there is none such."""
    done = session.execute(
        update(Challenge)
        .where(
            Challenge.public_id == public_id,
            Challenge.player_id == player_id,
            Challenge.status == "open",
        )
        .values(status="withdrawn")
    )
    return bool(rowcount(done) == 1)


def forget_player(session: Session, player_id: int) -> None:
    """An erased player's challenges: the open ones withdrawn, every note gone."""
    session.execute(
        update(Challenge)
        .where(Challenge.player_id == player_id, Challenge.status == "open")
        .values(status="withdrawn")
    )
    session.execute(update(Challenge).where(Challenge.player_id == player_id).values(note=None))
