"""Signing in by a one-time link mailed to the address, and using such a link.

The answer to a sign-in request is the same whether the address is known. A GET
only shows what a link would do (``check_link``; mail scanners open links); a POST
uses it, once (``use_link``), which also confirms a new address (``address_change``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...i18n import lazy_gettext as _l
from ...store import players as player_rows
from ...store.models import Player, SignInLink
from ..core import limits
from ..core.access import Client, log_account_use
from ..core.env import Env
from ..core.errors import InvalidInput, NotAllowed
from ..core.identity import EMAIL, normal_email, player_for
from ..mailing import bounces
from . import sign_in_links
from .address_change import move_address


def request_sign_in(env: Env, email: str, client: Client) -> None:
    """Mail a one-time sign-in link to ``email`` if it can play; the caller learns nothing."""
    key = normal_email(email)
    if not EMAIL.match(key) or len(key) > 254:
        raise InvalidInput(_l("'%(email)s' does not look like an email address.", email=email))
    sign_in_links.admit(env, key, limits.network(client.ip))
    with env.db.write() as session:
        player = player_rows.by_email(session, key)
        log_account_use(session, env, player, "sign-in-request", client, detail=key)
        if player is not None and player.erased_at is not None:
            return
        token = sign_in_links.issue(session, env, "sign-in", key, client, player)
        sign_in_links.mail(
            session,
            env,
            "sign_in",
            key,
            _l("Jaipur by mail — your sign-in link"),
            player,
            link=f"{env.config.base_url}/signin/{token}",
        )


def check_link(env: Env, token: str) -> SignInLink:
    """What a link would do (GET shows it; only a POST uses it)."""
    with env.db.read() as session:
        return sign_in_links.open_link(session, token, env.clock.now())


def link_zone(env: Env, link: SignInLink) -> str | None:
    """The time zone saved by the player a link is for (None for an address new here):
    a link opened from a mail, in a browser that never told its own zone, shows its
    expiry in the player's zone, not in UTC."""
    with env.db.read() as session:
        player = (
            session.get(Player, link.player_id)
            if link.player_id is not None
            else player_rows.by_email(session, normal_email(link.email))
        )
        return player.timezone if player is not None else None


@dataclass(frozen=True, slots=True)
class SignedIn:
    player_id: int
    session_version: int
    #: The used link's id: the browser's session, which signing out ends on the server.
    session_id: int


def use_link(env: Env, token: str, client: Client) -> SignedIn:
    """Sign in (or confirm a new address) with a link, once: a second use is refused."""
    now = env.clock.now()
    with env.db.write() as session:
        link = sign_in_links.open_link(session, token, now, lock=True)
        if not player_rows.use_link(session, link.id, now):  # another request used it first
            raise NotAllowed(_l("This link has been used already."))
        if link.purpose == "change-email":
            player = session.get(Player, link.player_id)
            assert player is not None and link.new_email is not None
            bounces.moved(session, player.email, link.new_email)
            move_address(session, player, link.new_email)
        else:
            player = player_for(session, link.email, link.email.split("@")[0], now)
        player.verified_at = player.verified_at or now
        # the address just took a mail: it no longer bounces
        bounces.clear(session, [link.new_email or link.email])
        link.player_id = player.id
        log_account_use(
            session,
            env,
            player,
            "sign-in" if link.purpose == "sign-in" else "email-changed",
            client,
        )
        return SignedIn(player.id, player.session_version, link.id)
