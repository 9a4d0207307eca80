"""Who an email address is: the player row behind it (made unverified the first time the
address plays), and the seats it owns. Shared by games, players and ratings."""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..store.models import Player, Seat

_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def normal_email(email: str) -> str:
    return email.strip().casefold()


def player_for(session: Session, email: str, name: str, now: datetime) -> Player:
    key = normal_email(email)
    player = session.scalars(select(Player).where(Player.email == key)).one_or_none()
    if player is None:
        player = Player(
            public_id="".join(secrets.choice(_ALPHABET) for _ in range(10)),
            email=key,
            display_name=name[:80],
            created_at=now,
            session_version=1,
            mail_mode="each",
            language="en",
            timezone="UTC",
            rated_games=0,
        )
        session.add(player)
        session.flush()
    return player


def seats_of(session: Session, player: Player) -> list[Seat]:
    return list(session.scalars(select(Seat).where(func.lower(Seat.email) == player.email)))
