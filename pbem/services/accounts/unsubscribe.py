"""The one-click unsubscribe of every automatic mail (``List-Unsubscribe``, RFC 8058).

A mail to a seat switches that seat to the daily digest; the digest, mail to an address
rather than a seat, switches that account's digest off ("only invitations", the account
setting's own mode). The link's token is signed for this alone (``seat_tokens``): it
opens no game, names no address, and switching twice changes nothing more. A POST does
it with no cookie and no form token, as mail providers send it; a GET only shows what
the button will do (invariant 4).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from ...store import games as game_rows
from ...store import players as player_rows
from ..core.access import Client, log_account_use, log_game_access
from ..core.env import Env
from ..core.errors import BAD_LINK, Missing
from ..core.identity import seats_of
from ..core.seat_tokens import UnsubscribeClaim
from ..play.seat_settings import MAIL_MODES
from .account_settings import MAIL_MODES as ACCOUNT_MAIL_MODES

#: What a seat's mail becomes: the daily digest, a mode every seat may choose.
SEAT_TO = "digest"
#: What the digest becomes: no mail but invitations, a mode the account settings offer.
DIGEST_TO = "invitations"
assert SEAT_TO in MAIL_MODES and DIGEST_TO in ACCOUNT_MAIL_MODES


@dataclass(frozen=True, slots=True)
class Unsubscribe:
    """What a link switches, as its page says: one game's mail (against ``opponent``) to
    the digest, or the daily digest off. ``done``: it is so already."""

    digest_off: bool
    opponent: str | None
    done: bool


def _claim(env: Env, token: str) -> UnsubscribeClaim:
    claim = env.links.open_unsubscribe(token)
    if claim is None:
        raise Missing(BAD_LINK)
    return claim


def look(env: Env, token: str) -> Unsubscribe:
    """What the link would switch, changing nothing (the page of a GET)."""
    claim = _claim(env, token)
    with env.db.read() as session:
        return _apply(env, session, claim, None)


def unsubscribe(env: Env, token: str, client: Client) -> Unsubscribe:
    """Switch the mail the link names (the one-click POST); the access log records it."""
    claim = _claim(env, token)
    with env.db.write() as session:
        return _apply(env, session, claim, client)


def _apply(
    env: Env, session: Session, claim: UnsubscribeClaim, client: Client | None
) -> Unsubscribe:
    if claim.player is not None:
        player = player_rows.by_public_id(session, claim.player)
        if player is None or player.erased_at is not None:
            raise Missing(BAD_LINK)
        seats = [s for s in seats_of(session, player) if s.mail_mode == "digest"]
        done = player.mail_mode == DIGEST_TO and not seats
        if client is not None and not done:
            player.mail_mode = DIGEST_TO
            for seat in seats:
                seat.mail_mode = DIGEST_TO
            log_account_use(session, env, player, "unsubscribe", client, detail=DIGEST_TO)
        return Unsubscribe(True, None, done)
    game = game_rows.first_by_public_id(session, claim.public_id or "")
    if game is None or claim.seat is None or claim.seat >= len(game.seats):
        raise Missing(BAD_LINK)
    seat = game.seats[claim.seat]
    done = seat.mail_mode != "each"  # the digest already, or only invitations: less mail
    if client is not None and not done:
        seat.mail_mode = SEAT_TO
        log_game_access(session, env, game, claim.seat, "unsubscribe", client, detail=SEAT_TO)
    return Unsubscribe(False, game.seats[1 - claim.seat].name, done)
