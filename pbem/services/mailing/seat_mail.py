"""How a mail to a seat is addressed and put in its language, whichever mail it is.

Each mail to a seat is built from that seat's view (invariant 7); the game
header given to templates holds the seed only once the game is over. Every
mail to a seat threads under that seat's invitation. A mail that asks for a
move carries a Reply-To address that plays it; one the seat may answer without
being asked for a move (a receipt, the second player's invitation) carries the
seat's address of the move owed, whose reply is read and answered. A mail that
cannot be answered (game over) has none and says so. Every mail to a seat has a
one-click ``List-Unsubscribe`` (RFC 8058) that puts the seat on the daily digest.
Used by the mails written when they are queued (``queued_mails``) and by those
written when sent (``told``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ...i18n import use_reader
from ...mail import compose, outbox_row
from ...store import outbox as outbox_store
from ...store.models import Game
from ..core.env import Env
from ..core.replayed import seat_names
from ..core.seat_tokens import UnsubscribeClaim


def game_header(game: Game, *, over: bool) -> dict[str, Any]:
    """What a mail template may know of the game: never a seed while it runs.

    ``mixed``: dealt from both seats' contributions, so the commitment is sha256 of
    the server's seed, and the game's seed follows from it (docs/record-format.md).
    """
    mixed = game.server_seed is not None
    return {
        "public_id": game.public_id,
        "commitment": game.commitment,
        "seats": [{"name": name} for name in seat_names(game)],
        "seed": game.seed if over else None,
        "mixed": mixed,
        "server_seed": game.server_seed if over and mixed else None,
        "contributions": [s.contribution or "" for s in game.seats] if over and mixed else None,
        "days_per_move": game.days_per_move,
        "timeout_action": game.timeout_action,
    }


def seat_link(env: Env, game: Game, seat: int) -> str:
    return env.seat_url(env.links.seat_token(game.public_id, seat, game.seats[seat].key_version))


@dataclass(frozen=True, slots=True)
class Draft:
    """What a mail to a seat says, before it is put in the seat's language."""

    kind: str
    subject: Any  # lazy text
    context: dict[str, Any]
    reply_n: int | None = None  #: the move a reply plays: the mail asks for it
    #: the reply address of a mail that asks for no move but may be answered (a reply
    #: is read, and answered with what the seat can do); None with ``reply_n``: none
    answer_n: int | None = None


@dataclass(frozen=True, slots=True)
class Written:
    """A mail's words as sent: subject, both bodies, and the headers that go with them."""

    subject: str
    text: str
    html: str
    headers: dict[str, str]


def unsubscribe_headers(env: Env, claim: UnsubscribeClaim) -> dict[str, str]:
    """``List-Unsubscribe`` with its one-click POST (RFC 8058): a POST to the link, with no
    cookie and no form token, switches the mail it names to the digest, or off."""
    url = env.unsubscribe_url(env.links.unsubscribe_token(claim))
    return {"List-Unsubscribe": f"<{url}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}


def envelope(
    env: Env,
    game: Game,
    seat: int,
    kind: str,
    *,
    dedupe: str | None = None,
    message_id: str | None = None,
    about_n: int | None = None,
    chain_hash: str | None = None,
    not_before: datetime | None = None,
) -> dict[str, Any]:
    """A mail to a seat as an outbox row, without its words: who, which thread, which id."""
    root = outbox_row.thread_id(game.public_id, seat, env.config.mail_from)
    to_seat = game.seats[seat]
    return outbox_row.message(
        now=env.clock.now(),
        mail_from=env.config.mail_from,
        kind=kind,
        to=to_seat.email,
        to_name=to_seat.name,
        game_id=game.id,
        seat=seat,
        headers={"In-Reply-To": root, "References": root} if message_id is None else {},
        dedupe_key=dedupe,
        message_id=message_id,
        language=to_seat.language,
        about_n=about_n,
        chain_hash=chain_hash,
        not_before=not_before,
    )


def write(env: Env, game: Game, seat: int, draft: Draft, now: datetime) -> Written:
    """Put a draft in the seat's language and time zone.

    The subject and any lazy text in the context are resolved here, for the
    recipient: a mail caused by the other player's request is in the recipient's
    language. The seat's link and Reply-To carry its current key version.
    """
    names = seat_names(game)
    context = dict(draft.context)
    headers = unsubscribe_headers(env, UnsubscribeClaim(public_id=game.public_id, seat=seat))
    answer_n = draft.reply_n if draft.reply_n is not None else draft.answer_n
    if answer_n is not None:
        token = env.links.reply_token(game.public_id, seat, answer_n, game.seats[seat].key_version)
        headers["Reply-To"] = env.config.reply_to(token)
    context.update(
        game=game_header(game, over=draft.kind == "game_over"),
        seat=seat,
        me=names[seat],
        opponent=names[1 - seat],
        game_url=env.game_url(game.public_id),
        link=context.get("link") or seat_link(env, game, seat),
        reply_to=headers.get("Reply-To") if draft.reply_n is not None else None,
        # a reply is read but plays no move yet: the mail says what a reply does
        answer_to=headers.get("Reply-To") if draft.reply_n is None else None,
        now=now,
    )
    to_seat = game.seats[seat]
    with use_reader(to_seat.language, to_seat.timezone):
        text, html = compose.render(draft.kind, **context)
        subject = str(draft.subject)
    return Written(subject, text, html, {**headers, "Content-Language": to_seat.language})


def queue_written(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    kind: str,
    subject: Any,
    *,
    reply_n: int | None = None,
    answer_n: int | None = None,
    dedupe: str | None = None,
    message_id: str | None = None,
    not_before: datetime | None = None,
    **context: Any,
) -> bool:
    """Write one mail to a seat now, in its language, and queue it; False if queued before
    (``dedupe``)."""
    if dedupe is not None and outbox_store.queued(session, dedupe):
        return False
    row = envelope(
        env, game, seat, kind, dedupe=dedupe, message_id=message_id, not_before=not_before
    )
    written = write(
        env, game, seat, Draft(kind, subject, context, reply_n, answer_n), env.clock.now()
    )
    row.update(
        subject=written.subject,
        text_body=written.text,
        html_body=written.html,
        headers={**row["headers"], **written.headers},
    )
    outbox_store.queue_all(session, [row])
    return True
