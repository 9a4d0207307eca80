"""The access log: the line every use of a seat's key or of an account writes (through
its recorder, ``store/access_log.py``), and who made it (``Client``).

A player is an email address that has been proven by a sign-in link; they own
every seat with that address, past and future. Seat links keep working without
any account. What a player can do with their account lives in ``services/accounts/``:
signing in (``sign_in``, ``sign_in_links``), their sessions (``sessions``), a new
address (``address_change``), their games (``dashboard``), their settings
(``account_settings``), erasing it (``erasure``) and what anyone sees of them
(``public_player``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from ... import redact
from ...store import access_log, games
from ...store.models import Game, Player, Seat
from .env import Env

if TYPE_CHECKING:
    from .lookup import Key


@dataclass(frozen=True, slots=True)
class Client:
    """Who is on the other end of a request, for the access log."""

    ip: str | None = None
    user_agent: str | None = None


def log_account_use(
    session: Session,
    env: Env,
    player: Player | None,
    action: str,
    client: Client,
    detail: str | None = None,
) -> None:
    """One line of the access log for a use of an account (no game, no seat)."""
    access_log.append(
        session,
        game_id=None,
        player_id=player.id if player else None,
        seat=None,
        at=env.clock.now(),
        action=action,
        ip=(client.ip or "")[:64] or None,
        user_agent=(client.user_agent or "")[:300] or None,
        detail=detail,
    )


def log_game_access(
    session: Session,
    env: Env,
    game: Game,
    seat: int | None,
    action: str,
    client: Client,
    *,
    seen_n: int | None = None,
    key_version: int | None = None,
    detail: str | None = None,
) -> None:
    access_log.append(
        session,
        game_id=game.id,
        seat=seat,
        at=env.clock.now(),
        action=action,
        seen_n=seen_n,
        key_version=key_version,
        ip=(client.ip or "")[:64] or None,
        user_agent=(client.user_agent or "")[:300] or None,
        detail=None if detail is None else redact.scrubbed(detail),
    )


def log_refusal(
    env: Env, claim: Key | None, action: str, client: Client, detail: str, seen_n: int | None
) -> None:
    """Record a refused attempt in its own transaction: the refusal itself changed nothing."""
    if claim is None:
        return
    with env.db.write() as session:
        game = games.by_public_id(session, claim.public_id)
        if game is not None:
            log_game_access(
                session,
                env,
                game,
                claim.seat,
                action,
                client,
                seen_n=seen_n,
                key_version=claim.key_version,
                detail=detail[:500],
            )


def log_seat_use(
    session: Session,
    env: Env,
    game: Game,
    seat: Seat,
    action: str,
    client: Client,
    *,
    seen_n: int,
    detail: str | None = None,
) -> None:
    """Record in the access log that a seat's key was used, and what it saw (``seen_n``)."""
    log_game_access(
        session,
        env,
        game,
        seat.seat,
        action,
        client,
        seen_n=seen_n,
        key_version=seat.key_version,
        detail=detail,
    )
