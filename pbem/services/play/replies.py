"""Moves by email reply: the reply address authenticates, the first line is the move.

Accepted replies go through the same use case as the web (``moves.submit_reply``).
Refused ones (unreadable, illegal, not your turn, stale, bad address, too big, no
text) get an answer that quotes what was read (without its links), says why and lists
a few legal moves, up to ``PBEM_LIMIT_REFUSALS_PER_SEAT`` answers to a seat; nothing is
recorded. A mail delivered twice (same Message-ID) is handled once. An address whose
move is spent is answered for ``reply_grace_hours``, then taken for no address at all
(``address_open``): refused at RCPT, never answered.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from babel.support import LazyProxy

from ... import engine as jaipur
from ... import redact
from ...clock import as_utc
from ...engine import Exchange, Sell, TakeCamels, TakeGood
from ...i18n import Reader, use_reader
from ...i18n import lazy_gettext as _l
from ...mail.automatic import why_automatic
from ...mail.inbound import Inbound, parse_inbound, reply_tokens, split_reply
from ...store import games as game_rows
from ...store import inbound as inbound_rows
from ..core import limits
from ..core.access import Client
from ..core.env import Env
from ..core.errors import MAIL_GAME_OVER, Frozen, ServiceError
from ..core.lookup import log_rows, state_of
from ..core.replayed import answers_owed, owed_entry, turn_after
from ..core.seat_tokens import ReplyClaim
from ..core.status import GameStatus
from ..mailing import address_mails
from . import moves, notes

BAD_ADDRESS = _l(
    "this reply address is not valid: it may come from an old mail, or the link "
    "was replaced. Use the newest mail about the game, or your seat page."
)


@dataclass(frozen=True, slots=True)
class ReplyOutcome:
    #: accepted, refused, duplicate, ignored (no genuine reply address), dropped (automatic)
    outcome: str
    detail: str


def handle_mail(
    env: Env,
    raw: bytes,
    envelope_rcpts: list[str] | tuple[str, ...] = (),
    envelope_sender: str | None = None,
) -> ReplyOutcome:
    """Handle one inbound mail end to end; never raises for anything the sender did.

    Only a genuine reply address (signed by this server) is ever answered, and only at
    that seat's own address: a forged or unknown address gets no mail at all, so the
    server cannot be made to write to whatever the unverified ``From`` says. An automatic
    mail (an out-of-office reply, a null sender: ``mail.automatic``) is dropped, never
    read as a move nor answered (RFC 3834). ``envelope_sender``: SMTP's ``MAIL FROM``
    ("" for ``<>``), None when the mail came another way (IMAP).
    """
    mail = parse_inbound(raw, envelope_rcpts, env.config.inbound_max_bytes)
    claim, token, expired = _claim_of(env, mail)
    if not _claim_message(env, _dedupe_key(mail.message_id, token)):
        return ReplyOutcome("duplicate", f"{mail.message_id} was handled before")
    key = _dedupe_key(mail.message_id, token)
    automatic = why_automatic(raw, envelope_sender)
    if automatic is not None:
        _finish(env, key, claim, "dropped", f"an automatic mail ({automatic}): not answered")
        return ReplyOutcome("dropped", f"an automatic mail ({automatic}): not answered")
    if claim is None:
        why = "an expired reply address" if expired else "no genuine reply address"
        _finish(env, key, None, "ignored", f"{why}: not answered")
        return ReplyOutcome("ignored", why)
    if mail.problem is not None:
        return _refuse(env, mail, key, claim, "", mail.problem)
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
        return _refuse(env, mail, key, claim, line, reason)
    _finish(env, key, claim, "accepted", f"move {done.n}: {done.move}")
    return ReplyOutcome("accepted", f"move {done.n}: {done.move}")


def _dedupe_key(message_id: str, token: str | None) -> str:
    """The same mail delivered twice to one reply address is handled once; a mail sent to
    two reply addresses (LMTP delivers it once per recipient) is handled for each."""
    if token is None:
        return message_id
    return f"{message_id[:280]}|{hashlib.sha256(token.encode()).hexdigest()[:16]}"


def _claim_message(env: Env, message_id: str) -> bool:
    """Take the Message-ID, or learn that another delivery of this mail already took it."""
    try:
        with env.db.write() as session:
            inbound_rows.take(session, message_id, env.clock.now())
    except inbound_rows.Taken:
        return False
    return True


def _finish(env: Env, message_id: str, claim: ReplyClaim | None, outcome: str, detail: str) -> None:
    with env.db.write() as session:
        row = inbound_rows.by_message_id(session, message_id)
        row.outcome, row.detail = outcome, redact.scrubbed(detail)[:1000]
        if claim is not None:
            game = game_rows.first_by_public_id(session, claim.public_id)
            row.game_id, row.seat = (game.id if game else None), claim.seat


def _claim_of(env: Env, mail: Inbound) -> tuple[ReplyClaim | None, str | None, bool]:
    """The first genuine reply address among the recipients that is still open, its
    token, and whether a genuine one was passed over as expired."""
    expired = False
    for token in reply_tokens(mail.recipients, env.config.reply_address):
        claim = env.links.open_reply(token)
        if claim is None:
            continue
        if address_open(env, claim):
            return claim, token, False
        expired = True
    return None, None, expired


def accepts_recipient(env: Env, address: str) -> bool:
    """The receiver's RCPT check: a reply address this server signed, still open."""
    tokens = reply_tokens([address], env.config.reply_address)
    claim = env.links.open_reply(tokens[0]) if tokens else None
    return claim is not None and address_open(env, claim)


def refusal_reason(env: Env, address: str) -> str:
    """Why the receiver refused ``address`` at RCPT, for its log: a genuine reply address
    whose move is spent, or none of this server's (forged, mistyped, another name)."""
    tokens = reply_tokens([address], env.config.reply_address)
    if tokens and env.links.open_reply(tokens[0]) is not None:
        return "an expired reply address"
    return "not a reply address of this server"


def address_open(env: Env, claim: ReplyClaim) -> bool:
    """Whether mail to a genuine reply address is still read and answered.

    It is while its move is the one owed, however old the mail: the game's next one, or
    one the clock's timeout entries followed (a timeout is not a move, ``played.answers_owed``).
    Once the game has moved past it (either seat moved) or has ended, it is for
    ``reply_grace_hours`` more, so a reply that crossed the opponent's move is told what
    happened; then never again, so an old address cannot make the server write to its
    seat. A replaced link's address (the key version moved on), the computer's seat and
    a game that is gone are never open.
    """
    with env.db.read() as session:
        found = game_rows.with_tail(session, claim.public_id)
        if found is None:
            return False
        game, tail_n, _tail_hash = found
        if claim.seat >= len(game.seats):
            return False
        seat = game.seats[claim.seat]
        if seat.key_version != claim.key_version or seat.bot is not None:
            return False
        due = (tail_n or 0) + 1
        if claim.n > due:  # never handed out
            return False
        if claim.n == due and game.status != GameStatus.FINISHED:
            return True
        spent = game.finished_at
        if claim.n < due:
            rows = log_rows(session, game)
            if answers_owed([row.move for row in rows], claim.n):
                if game.status != GameStatus.FINISHED:
                    return True
            else:  # spent when the move it was for was made, not when the clock wrote
                spent = next(r.at for r in rows[claim.n - 1 :] if r.move != "timeout")
    grace = timedelta(hours=env.config.reply_grace_hours)
    return spent is not None and env.clock.now() - as_utc(spent) <= grace


def examples(moves_list: list) -> list[str]:
    """A few legal moves of different kinds, to show what a reply could say."""
    picked: list[str] = []
    for kind in (TakeGood, TakeCamels, Sell, Exchange):
        of_kind = [m for m in moves_list if isinstance(m, kind)]
        picked.extend(str(m) for m in of_kind[:2])
    return picked[:6]


def _moved_on(n: int, now: int) -> Any:
    """A reply to an older mail, said in a mail's words (not the web page's)."""
    return _l(
        "your reply answers the mail about move %(n)s, but the game has moved on since: "
        "it is now at move %(now)s. The position as it is now is below.",
        n=n,
        now=now,
    )


#: A mail's words for it (``errors.MAIL_GAME_OVER``), the same wherever a reply is refused.
GAME_OVER = MAIL_GAME_OVER


def _refuse(
    env: Env, mail: Inbound, key: str, claim: ReplyClaim, line: str, reason: Any
) -> ReplyOutcome:
    """Answer a genuine reply address at its seat's own address, never at ``From``.

    The answer says what was read and why nothing was recorded, and shows the position as
    it is now, with a few legal moves when it is the seat's turn. It quotes no link of
    the mail (whoever wrote it), and a seat gets at most ``refusals_per_seat`` of them:
    beyond, the reply is logged as refused and nobody is mailed.
    """
    read = notes.without_links(line[:400])[:200]
    reason = _without_links(reason)
    answer = limits.allowed(env, "refusals_per_seat", f"{claim.public_id}\n{claim.seat}")
    with env.db.write() as session:
        game = game_rows.first_by_public_id(session, claim.public_id)
        if answer and game is not None and 0 <= claim.seat < len(game.seats):
            seat_row = game.seats[claim.seat]
            view = legal = None
            match = None
            answer_n = 1 if not game.dealt else None  # waiting: read, and told so
            if game.dealt:
                rows = log_rows(session, game)
                try:
                    match = state_of(env, game, rows)
                except Frozen as exc:  # no position to show: its log does not verify
                    reason = exc.text
            if match is not None:
                if match.is_over:
                    reason = GAME_OVER
                elif (
                    not answers_owed(logged := [row.move for row in rows], claim.n)
                    and seat_row.key_version == claim.key_version
                ):  # in the numbers the mails gave those moves
                    reason = _moved_on(turn_after(logged[: claim.n - 1]), turn_after(logged))
                view = jaipur.seat_view(match, claim.seat)
                if not match.is_over:  # the seat's address of the move owed now
                    answer_n = owed_entry([row.move for row in rows])
                if match.to_move == claim.seat and seat_row.key_version == claim.key_version:
                    legal = examples(match.legal_moves())
            address_mails.refusal(
                session,
                env,
                seat_row.email,
                to_name=seat_row.name,
                read=read,
                reason=reason,
                examples=legal or [],
                view=view,
                opponent=game.seats[1 - claim.seat].name,
                game=game,
                seat=claim.seat,
                in_reply_to=mail.message_id,
                reader=Reader(seat_row.language, seat_row.timezone),
                answer_n=answer_n,
            )
    with use_reader("en"):  # the inbound log and the outcome are for operators
        english = str(reason)
    if not answer:
        english += " (not answered: the seat had its share of refusals for now)"
    _finish(env, key, claim, "refused", f"{read!r}: {english}")
    return ReplyOutcome("refused", english)


def _without_links(reason: Any) -> Any:
    """The reason, as lazy as it came, with no link in it (an engine's refusal quotes the
    word it could not read, which may be one)."""
    return LazyProxy(lambda: notes.without_links(str(reason)), enable_cache=False)
