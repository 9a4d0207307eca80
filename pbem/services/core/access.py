"""A player, and the access log line every use of an account writes.

A player is an email address that has been proven by a sign-in link; they own
every seat with that address, past and future. Seat links keep working without
any account. What a player can do with their account lives beside this module:
signing in (``sign_in``, ``sign_in_links``), their sessions (``sessions``), a new
address (``address_change``), their games (``dashboard``), their settings
(``account_settings``), erasing it (``erasure``) and what anyone sees of them
(``public_player``).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from ...store import access_log
from ...store.models import Player
from .env import Env
from .log import Client


def note_access(
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
