"""Replacing a leaked seat link, and "send me my link again" (rate-limited, answerless)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from ..i18n import lazy_gettext as _l
from ..store.models import AccessLog, OutboxMessage
from . import notify
from .env import Env
from .errors import RateLimited
from .log import Client, authenticate, game_row, record_access

LINK_REQUESTS_PER_IP = (5, timedelta(minutes=10))

LINK_MAILS_PER_SEAT = (3, timedelta(hours=1))


def reissue_link(env: Env, token: str, client: Client) -> None:
    """Revoke this seat's links (bump the key version) and mail it a fresh one."""
    with env.db.write() as session:
        game, seat = authenticate(env, session, token, lock=True)
        seat.key_version += 1
        new_token = env.links.seat_token(game.public_id, seat.seat, seat.key_version)
        record_access(
            session, env, game, seat.seat, "reissue", client, key_version=seat.key_version - 1
        )
        notify.link(session, env, game, seat.seat, new_token, reissued=True)


def request_link(env: Env, public_id: str, email: str, client: Client) -> None:
    """Mail a seat its link if ``email`` is that seat's; the caller learns nothing either way."""
    now = env.clock.now()
    with env.db.write() as session:
        game = game_row(session, public_id)
        limit, window = LINK_REQUESTS_PER_IP
        recent = session.scalar(
            select(func.count())
            .select_from(AccessLog)
            .where(
                AccessLog.action == "link-request",
                AccessLog.ip == client.ip,
                AccessLog.at >= now - window,
            )
        )
        if client.ip and recent >= limit:
            raise RateLimited(
                _l("Too many requests for links from here; try again in a few minutes.")
            )
        record_access(session, env, game, None, "link-request", client)
        wanted = email.strip().casefold()
        for seat in game.seats:
            if seat.email.casefold() != wanted:
                continue
            limit, window = LINK_MAILS_PER_SEAT
            mailed = session.scalar(
                select(func.count())
                .select_from(OutboxMessage)
                .where(
                    OutboxMessage.game_id == game.id,
                    OutboxMessage.seat == seat.seat,
                    OutboxMessage.kind == "link",
                    OutboxMessage.created_at >= now - window,
                )
            )
            if mailed < limit:
                token = env.links.seat_token(game.public_id, seat.seat, seat.key_version)
                notify.link(session, env, game, seat.seat, token, reissued=False)
