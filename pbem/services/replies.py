"""Moves by email reply: the reply address authenticates, the first line is the move.

Accepted replies go through the same use case as the web (``moves.submit_reply``).
Refused ones (unreadable, illegal, not your turn, stale, bad address, too big, no
text) get an answer that quotes what was read, says why and lists a few legal
moves; nothing is recorded. A mail delivered twice (same Message-ID) is handled once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..engine import Exchange, Sell, TakeCamels, TakeGood
from ..i18n import Reader, use_reader
from ..i18n import lazy_gettext as _l
from ..mail.inbound import Inbound, parse_inbound, reply_tokens, split_reply
from ..store.models import Game, InboundMail
from . import moves, notes, notify
from .env import Env
from .errors import ServiceError
from .links import ReplyClaim
from .log import Client, log_rows, open_claim, state_of

BAD_ADDRESS = _l(
    "this reply address is not valid: it may come from an old mail, or the link "
    "was replaced. Use the newest mail about the game, or your seat page."
)


@dataclass(frozen=True, slots=True)
class ReplyOutcome:
    outcome: str  # accepted, refused, duplicate
    detail: str


def handle_mail(
    env: Env, raw: bytes, envelope_rcpts: list[str] | tuple[str, ...] = ()
) -> ReplyOutcome:
    """Handle one inbound mail end to end; never raises for anything the sender did."""
    mail = parse_inbound(raw, envelope_rcpts, env.config.inbound_max_bytes)
    if not _claim_message(env, mail.message_id):
        return ReplyOutcome("duplicate", f"{mail.message_id} was handled before")
    claim = _claim_of(env, mail)
    if mail.problem is not None:
        return _refuse(env, mail, claim, "", mail.problem)
    if claim is None:
        return _refuse(env, mail, None, split_reply(mail.text or "")[0], BAD_ADDRESS)
    line, note = split_reply(
        mail.text or "",
        is_move=moves.move_reader(env, claim),
        is_ours=notes.ServerText.of(env.config).is_ours,
    )
    client = Client(ip=None, user_agent=f"email from {mail.sender or 'unknown'}"[:300])
    try:
        done = moves.submit_reply(env, claim, line, note, client)
    except ServiceError as exc:
        reason = BAD_ADDRESS if exc.status == 403 else exc.text
        return _refuse(env, mail, claim if exc.status != 403 else None, line, reason)
    _finish(env, mail.message_id, claim, "accepted", f"move {done.n}: {done.move}")
    return ReplyOutcome("accepted", f"move {done.n}: {done.move}")


def _claim_message(env: Env, message_id: str) -> bool:
    """Take the Message-ID, or learn that another delivery of this mail already took it."""
    try:
        with env.db.write() as session:
            if session.scalar(select(InboundMail.id).where(InboundMail.message_id == message_id)):
                return False
            session.add(
                InboundMail(message_id=message_id, received_at=env.clock.now(), outcome="received")
            )
    except IntegrityError:
        return False
    return True


def _finish(env: Env, message_id: str, claim: ReplyClaim | None, outcome: str, detail: str) -> None:
    with env.db.write() as session:
        row = session.scalars(select(InboundMail).where(InboundMail.message_id == message_id)).one()
        row.outcome, row.detail = outcome, detail[:1000]
        if claim is not None:
            game = session.scalars(select(Game).where(Game.public_id == claim.public_id)).first()
            row.game_id, row.seat = (game.id if game else None), claim.seat


def _claim_of(env: Env, mail: Inbound) -> ReplyClaim | None:
    for token in reply_tokens(mail.recipients, env.config.reply_address):
        claim = env.links.open_reply(token)
        if claim is not None:
            return claim
    return None


def examples(moves_list: list) -> list[str]:
    """A few legal moves of different kinds, to show what a reply could say."""
    picked: list[str] = []
    for kind in (TakeGood, TakeCamels, Sell, Exchange):
        of_kind = [m for m in moves_list if isinstance(m, kind)]
        picked.extend(str(m) for m in of_kind[:2])
    return picked[:6]


def _refuse(
    env: Env, mail: Inbound, claim: ReplyClaim | None, line: str, reason: Any
) -> ReplyOutcome:
    """Answer the mail; to the seat's own address when the reply address was genuine."""
    with env.db.write() as session:
        game = seat = None
        to = mail.sender
        reader = Reader()
        legal: list[str] = []
        if claim is not None:
            try:
                game, seat_row = open_claim(session, claim)
            except ServiceError:
                game = None
            else:
                seat = seat_row.seat
                to = f"{seat_row.name} <{seat_row.email}>"
                reader = Reader(seat_row.language, seat_row.timezone)
                match = state_of(env, game, log_rows(session, game))
                if match.to_move == seat:
                    legal = examples(match.legal_moves())
        if to:
            notify.refusal(
                session,
                env,
                to,
                read=line[:200],
                reason=reason,
                examples=legal,
                game=game,
                seat=seat,
                in_reply_to=mail.message_id,
                reader=reader,
            )
    with use_reader("en"):  # the inbound log and the outcome are for operators
        english = str(reason)
    _finish(env, mail.message_id, claim, "refused", f"{line[:200]!r}: {english}")
    return ReplyOutcome("refused", english)
