"""Replacing a leaked seat link, and "send me my link again" (rate-limited, answerless)."""

from __future__ import annotations

from ...i18n import lazy_gettext as _l
from ..core import limits
from ..core.access import Client, log_game_access
from ..core.env import Env
from ..core.lookup import authenticate, game_row
from ..mailing import queued_mails


def reissue_link(env: Env, token: str, client: Client) -> None:
    """Revoke this seat's links (bump the key version) and mail it a fresh one."""
    with env.db.write() as session:
        game, seat = authenticate(env, session, token, lock=True)
        seat.key_version += 1
        new_token = env.links.seat_token(game.public_id, seat.seat, seat.key_version)
        log_game_access(
            session, env, game, seat.seat, "reissue", client, key_version=seat.key_version - 1
        )
        queued_mails.link(session, env, game, seat.seat, new_token, reissued=True)


def request_link(env: Env, public_id: str, email: str, client: Client) -> None:
    """Mail a seat its link if ``email`` is that seat's; the caller learns nothing either way.

    Too many requests from one client are refused (429). Link mails to one seat are
    counted per client asking, and only when one is sent: strangers asking for a
    seat's link use up their own count, never its owner's. Beyond it nothing more is
    sent, and the answer stays the same (it cannot say more without telling whether
    the address plays): the mails already sent hold the seat's current link.
    """
    who = limits.network(client.ip)
    limits.enforce(
        env,
        "link_requests_per_client",
        who,
        _l("Too many requests for links from here; try again in a few minutes."),
    )
    wanted = email.strip().casefold()[:320]
    with env.db.read() as session:
        seats = [s.seat for s in game_row(session, public_id).seats if s.email.casefold() == wanted]
    counts = {
        seat: limits.Count("link_mails_per_seat", who and f"{public_id}\n{seat}\n{who}")
        for seat in seats
    }
    due = [seat for seat in seats if not limits.wait(env, counts[seat])]
    with env.db.write() as session:
        game = game_row(session, public_id)
        log_game_access(session, env, game, None, "link-request", client)
        for seat in game.seats:
            if seat.seat in due:
                token = env.links.seat_token(game.public_id, seat.seat, seat.key_version)
                queued_mails.link(session, env, game, seat.seat, token, reissued=False)
    limits.count(env, *(counts[seat] for seat in due))
