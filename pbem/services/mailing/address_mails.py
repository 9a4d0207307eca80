"""The mails to an address rather than to a seat, written when queued: the daily digest
and the refusal of a reply mail that recorded nothing.

The digest tells of several games: a reply to it is not read (its text says so), and its
``List-Unsubscribe`` switches the account's digest off ("only invitations"). A refusal
answers a seat's own reply address: its Reply-To is that seat's address of the move owed
now, unless the game is over (then it has none and says so)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from ... import engine as jaipur
from ...i18n import Reader, gettext, ngettext, use_reader
from ...mail import compose, outbox_row
from ...store import outbox as outbox_store
from ...store import players as player_rows
from ...store.models import Game
from ..core.env import Env
from ..core.identity import normal_email
from ..core.seat_tokens import UnsubscribeClaim
from .seat_mail import seat_link, unsubscribe_headers


def digest(
    session: Session,
    env: Env,
    email: str,
    name: str,
    entries: list[dict[str, Any]],
    day: str,
    reader: Reader,
) -> bool:
    """One mail listing every game that waits for this address's move (no per-turn mail)."""
    key = f"digest:{email.casefold()}:{day}"
    if outbox_store.queued(session, key):  # before rendering it: a job that runs twice
        return False
    context = dict(me=name, entries=entries, day=day, now=env.clock.now())
    count = len(entries)
    with use_reader(reader.language, reader.timezone):
        text, html = compose.render("digest", **context)
        subject = ngettext(
            "Jaipur: %(num)s game waiting for your move",
            "Jaipur: %(num)s games waiting for your move",
            count,
        )
    return outbox_store.queue(
        session,
        outbox_row.message(
            now=env.clock.now(),
            mail_from=env.config.mail_from,
            kind="digest",
            to=email,
            to_name=name,
            subject=subject,
            text=text,
            html=html,
            dedupe_key=key,
            language=reader.language,
            headers=_digest_unsubscribe(session, env, email),
        ),
    )


def _digest_unsubscribe(session: Session, env: Env, email: str) -> dict[str, str]:
    """The digest's one-click unsubscribe: scoped to the address's account, no seat."""
    player = player_rows.by_email(session, normal_email(email))
    if player is None:
        return {}
    return unsubscribe_headers(env, UnsubscribeClaim(player=player.public_id))


def refusal(
    session: Session,
    env: Env,
    to: str,
    *,
    to_name: str | None = None,
    read: str,
    reason: Any,
    examples: list[str],
    view: jaipur.SeatView | None = None,
    opponent: str | None = None,
    game: Game | None = None,
    seat: int | None = None,
    in_reply_to: str | None = None,
    reader: Reader | None = None,
    answer_n: int | None = None,
) -> None:
    """The answer to a reply that recorded nothing: what was read, why, what would work.

    ``answer_n``: the move the seat's reply address answers now (its Reply-To); None, the
    game is over or has no position, and the mail says a reply is not read."""
    context = dict(
        read=read,
        reason=reason,
        examples=examples,
        view=view,
        opponent=opponent,
        now=env.clock.now(),
        link=seat_link(env, game, seat) if game is not None and seat is not None else None,
        answerable=answer_n is not None,
    )
    reader = reader or Reader()
    with use_reader(reader.language, reader.timezone):
        text, html = compose.render("refusal", **context)
        subject = gettext("Jaipur: your move was not recorded")
    headers: dict[str, str] = {}
    if in_reply_to:
        headers = {"In-Reply-To": in_reply_to, "References": in_reply_to}
    if game is not None and seat is not None:
        headers.update(
            unsubscribe_headers(env, UnsubscribeClaim(public_id=game.public_id, seat=seat))
        )
        if answer_n is not None:
            token = env.links.reply_token(
                game.public_id, seat, answer_n, game.seats[seat].key_version
            )
            headers["Reply-To"] = env.config.reply_to(token)
    outbox_store.queue(
        session,
        outbox_row.message(
            now=env.clock.now(),
            mail_from=env.config.mail_from,
            kind="refusal",
            to=to,
            to_name=to_name,
            subject=subject,
            text=text,
            html=html,
            game_id=game.id if game is not None else None,
            seat=seat,
            headers=headers,
            language=reader.language,
        ),
    )
