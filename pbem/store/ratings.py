"""The ratings' recorder: forget every rating, the finished games to rate, the rated players.

Ratings are derived values (invariant 1 allows them, never as truth): they can be
forgotten and recomputed from the finished games at any time.
"""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ..engine import Status
from .models import Game, Player


def forget_all(session: Session) -> None:
    """Clear every player's rating and every game's "rated" mark."""
    session.execute(update(Player).values(rating_mu=None, rating_sigma=None, rated_games=0))
    session.execute(update(Game).values(rated_at=None))


def finished_in_order(session: Session) -> list[Game]:
    """The finished games whose log verifies, in the order they finished."""
    return list(
        session.scalars(
            select(Game)
            .where(Game.status == Status.FINISHED.value, Game.integrity_error.is_(None))
            .order_by(Game.finished_at, Game.id)
        )
    )


def rated_players(session: Session) -> list[Player]:
    """The players with a rating who have not been erased."""
    return list(
        session.scalars(select(Player).where(Player.rated_games > 0, Player.erased_at.is_(None)))
    )
