"""A signed-in browser's session: who it is, and ending it on the server.

The session cookie holds the player's id, their session version and the id of the
link that signed the browser in. A session is valid while that link was not signed
out and the player's sessions were not all ended ("sign out everywhere", erasure).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...store import players as player_rows
from ...store.models import Player, SignInLink
from ..core.access import Client, log_account_use
from ..core.env import Env


@dataclass(frozen=True, slots=True)
class Header:
    """What a page's header shows of the signed-in player: plain values, no ORM object
    (a template never reads the database, nor a row detached from its session)."""

    public_id: str
    display_name: str


def signed_in_as(env: Env, player_id: Any, version: Any, session_id: Any = None) -> Header | None:
    """The header's view of a session's player (None when nobody is signed in)."""
    player = current(env, player_id, version, session_id)
    return None if player is None else Header(player.public_id, player.display_name)


def current(env: Env, player_id: Any, version: Any, session_id: Any = None) -> Player | None:
    """The signed-in player of a session, if the session is still valid.

    Valid means: the player's sessions have not all been ended ("sign out
    everywhere", erasure) and this one was not signed out, on the server.
    """
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (player_id, version)):
        return None
    if not isinstance(session_id, int) or isinstance(session_id, bool):
        return None
    with env.db.read() as session:
        found = player_rows.with_session(session, player_id, session_id)
        if found is None:
            return None
        player, signed_out_at = found
        if (
            signed_out_at is not None
            or player.erased_at is not None
            or player.session_version != version
        ):
            return None
        return player


def sign_out(env: Env, session_id: Any, client: Client) -> None:
    """End one browser's session on the server: its cookie, replayed, signs nobody in."""
    if not isinstance(session_id, int) or isinstance(session_id, bool):
        return
    with env.db.write() as session:
        link = session.get(SignInLink, session_id)
        if link is None or link.signed_out_at is not None:
            return
        link.signed_out_at = env.clock.now()
        player = session.get(Player, link.player_id) if link.player_id else None
        log_account_use(session, env, player, "sign-out", client)


def sign_out_everywhere(env: Env, player_id: int, client: Client) -> None:
    """End every session of the player: each cookie carries a version that is now old."""
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is not None:
            player.session_version += 1
            log_account_use(session, env, player, "sign-out-everywhere", client)
