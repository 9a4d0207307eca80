"""A new address for a player: asked for, mailed to the new address, then moved.

The change is confirmed by a link mailed to the new address (``sign_in_links``);
using it (``sign_in.use_link``) moves the player and every seat of theirs to it.
The requester learns nothing about the new address either way.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from ...i18n import lazy_gettext as _l
from ...store import players as player_rows
from ...store.models import Player
from ..core.access import Client, log_account_use
from ..core.env import Env
from ..core.errors import InvalidInput, NotAllowed
from ..core.identity import EMAIL, normal_email, seats_of
from . import sign_in_links


def request_email_change(env: Env, player_id: int, new_email: str, client: Client) -> None:
    """Mail the new address; the requester learns nothing about it either way.

    A free address gets a link that confirms the change. An address that belongs
    to another account gets a mail saying so, and what its owner can do; the
    page the requester sees is the same in both cases.
    """
    key = normal_email(new_email)
    if not EMAIL.match(key) or len(key) > 254:
        raise InvalidInput(
            _l("'%(email)s' does not look like an email address.", email=new_email[:254])
        )
    with env.db.read() as session:
        player = session.get(Player, player_id)
        if player is not None and player.email == key:
            raise InvalidInput(_l("That is your address already."))
    sign_in_links.admit(env, key, f"player:{player_id}")  # their own account's limits
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise NotAllowed()
        log_account_use(session, env, player, "email-change-request", client, detail=key)
        owner = player_rows.by_email(session, key)
        if owner is not None:
            if owner.erased_at is None:
                sign_in_links.mail(
                    session,
                    env,
                    "address_taken",
                    key,
                    _l("Jaipur by mail — this address already has an account"),
                    owner,
                    name=owner.display_name,
                    signin=f"{env.config.base_url}/signin",
                )
            return
        token = sign_in_links.issue(
            session, env, "change-email", key, client, player, new_email=key
        )
        sign_in_links.mail(
            session,
            env,
            "change_email",
            key,
            _l("Jaipur by mail — confirm your new address"),
            player,
            link=f"{env.config.base_url}/signin/{token}",
            name=player.display_name,
        )


def move_address(session: Session, player: Player, new_email: str) -> None:
    """Move the player and every seat of theirs to ``new_email`` (a confirmed change)."""
    taken = player_rows.by_email(session, new_email)
    if taken is not None and taken.id != player.id:
        raise InvalidInput(_l("That address belongs to another player already."))
    for seat in seats_of(session, player):
        seat.email = new_email
    player.email = new_email
