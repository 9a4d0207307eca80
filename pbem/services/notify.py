"""The mails a game sends, queued in the outbox inside the use case's transaction.

Each mail to a seat is built from that seat's view (invariant 7); the game
header given to templates holds the seed only once the game is over. Every
mail to a seat threads under that seat's invitation, and a mail that asks for a
move carries a Reply-To address that plays it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from .. import engine as jaipur
from ..engine import Match
from ..engine.explain import Account
from ..i18n import Reader, gettext, ngettext, use_reader
from ..i18n import lazy_gettext as _l
from ..mail import compose, outbox
from ..store.models import Game
from .env import Env


@dataclass(frozen=True, slots=True)
class Moved:
    """What a logged entry did, for the mails that tell of it."""

    seat: int
    n: int
    move: str
    hash: str
    words: Account
    message: str | None
    after: Match
    round_ended: jaipur.RoundResult | None


def _header(game: Game, *, over: bool) -> dict[str, Any]:
    """What a mail template may know of the game: never the seed while it runs."""
    return {
        "public_id": game.public_id,
        "commitment": game.commitment,
        "seats": [{"name": s.name} for s in game.seats],
        "seed": game.seed if over else None,
        "days_per_move": game.days_per_move,
        "timeout_action": game.timeout_action,
    }


def seat_link(env: Env, game: Game, seat: int) -> str:
    return env.seat_url(env.links.seat_token(game.public_id, seat, game.seats[seat].key_version))


def _queue(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    kind: str,
    subject: Any,
    *,
    dedupe: str | None = None,
    **context: Any,
) -> bool:
    """Render and queue one mail to a seat, in its language; False if queued before (dedupe)."""
    if dedupe is not None and outbox.queued(session, dedupe):
        return False
    outbox.queue_all(session, [_mail(env, game, seat, kind, subject, dedupe=dedupe, **context)])
    return True


def _mail(
    env: Env,
    game: Game,
    seat: int,
    kind: str,
    subject: Any,
    *,
    reply_n: int | None = None,
    dedupe: str | None = None,
    message_id: str | None = None,
    **context: Any,
) -> dict[str, Any]:
    """One mail to a seat, rendered in its language, as an outbox row's values.

    ``subject`` and any lazy text in ``context`` are resolved here, for the recipient:
    a mail written during the other player's request is in the recipient's language.
    """
    names = (game.seats[0].name, game.seats[1].name)
    headers: dict[str, str] = {}
    if reply_n is not None:
        token = env.links.reply_token(game.public_id, seat, reply_n, game.seats[seat].key_version)
        headers["Reply-To"] = env.config.reply_to(token)
        context["reply_to"] = headers["Reply-To"]
    context.update(
        game=_header(game, over=kind == "game_over"),
        seat=seat,
        me=names[seat],
        opponent=names[1 - seat],
        game_url=env.game_url(game.public_id),
        link=context.get("link") or seat_link(env, game, seat),
        now=env.clock.now(),
    )
    context.setdefault("reply_to", None)
    to_seat = game.seats[seat]
    with use_reader(to_seat.language, to_seat.timezone):
        text, html = compose.render(kind, **context)
        subject = str(subject)
    root = outbox.thread_id(game.public_id, seat, env.config.mail_from)
    if message_id is None:
        headers.update({"In-Reply-To": root, "References": root})
    return outbox.message(
        now=env.clock.now(),
        mail_from=env.config.mail_from,
        kind=kind,
        to=f"{names[seat]} <{game.seats[seat].email}>",
        subject=subject,
        text=text,
        html=html,
        game_id=game.id,
        seat=seat,
        headers=headers,
        dedupe_key=dedupe,
        message_id=message_id,
        language=to_seat.language,
    )


def invitation(
    session: Session, env: Env, game: Game, seat: int, token: str, match: Match | None
) -> None:
    """The first mail of a game; ``match`` is None while the game waits to be accepted."""
    opponent = game.seats[1 - seat].name
    starts = match is not None and match.to_move == seat
    _queue(
        session,
        env,
        game,
        seat,
        "invitation",
        _l("Jaipur vs %(opponent)s — a new game", opponent=opponent),
        link=env.seat_url(token),
        waiting=match is None,
        view=jaipur.seat_view(match, seat) if match is not None else None,
        starts=_l("You move first.") if starts else _l("%(name)s moves first.", name=opponent),
        reply_n=1 if starts else None,
        message_id=outbox.thread_id(game.public_id, seat, env.config.mail_from),
    )


def dealt(session: Session, env: Env, game: Game, seat: int, match: Match) -> None:
    """Both players accepted: the cards are dealt from the mixed seed."""
    opponent = game.seats[1 - seat].name
    starts = match.to_move == seat
    _queue(
        session,
        env,
        game,
        seat,
        "dealt",
        _l("Jaipur vs %(opponent)s — the cards are dealt: your turn (move 1)", opponent=opponent)
        if starts
        else _l("Jaipur vs %(opponent)s — the cards are dealt", opponent=opponent),
        view=jaipur.seat_view(match, seat),
        starts=starts,
        contributions=[s.contribution for s in game.seats],
        reply_n=1 if starts else None,
    )


def _mailed(game: Game) -> list[int]:
    """The seats that want mail about the game's progress (not "only invitations")."""
    return [s.seat for s in game.seats if s.mail_mode != "invitations"]


def after_move(session: Session, env: Env, game: Game, moved: Moved) -> None:
    """Game over to both; a timeout to both; else "your turn" and a receipt.

    After a round ends the loser starts the next one, so the seat to move may be
    the one that just moved. Seats on the daily digest get no per-turn mail. The
    move's mails go to the outbox in one statement.
    """
    outbox.queue_all(session, _mails_after(env, game, moved))


def _mails_after(env: Env, game: Game, moved: Moved) -> list[dict[str, Any]]:
    names = (game.seats[0].name, game.seats[1].name)
    after = moved.after
    common = dict(
        move=moved.move,
        words=moved.words,
        n=moved.n,
        hash=moved.hash,
        mover=names[moved.seat],
        round_ended=moved.round_ended,
        note=moved.message,
    )
    if after.is_over:
        return [
            _mail(
                env,
                game,
                seat,
                "game_over",
                _l("Jaipur vs %(opponent)s — game over", opponent=names[1 - seat]),
                match=after,
                won=after.winner == seat,
                record_url=env.record_url(game.public_id),
                **common,
            )
            for seat in _mailed(game)
        ]
    to_move = after.to_move
    assert to_move is not None
    waiting = 1 - to_move
    if moved.move == "timeout":
        can_claim = game.timeout_action == "claim"
        return [
            _mail(
                env,
                game,
                seat,
                "timeout",
                _l(
                    "Jaipur vs %(opponent)s — time ran out (move %(n)s)",
                    opponent=names[1 - seat],
                    n=moved.n + 1,
                ),
                late=seat == to_move,
                can_claim=can_claim,
                reply_n=moved.n + 1 if seat == to_move or can_claim else None,
                **common,
            )
            for seat in _mailed(game)
        ]
    mails: list[dict[str, Any]] = []
    if game.seats[to_move].mail_mode == "each":
        mails.append(
            _mail(
                env,
                game,
                to_move,
                "your_turn",
                _l(
                    "Jaipur vs %(opponent)s — your turn (move %(n)s)",
                    opponent=names[waiting],
                    n=moved.n + 1,
                ),
                view=jaipur.seat_view(after, to_move),
                reply_n=moved.n + 1,
                **common,
            )
        )
    if game.seats[waiting].mail_mode == "each":
        mails.append(
            _mail(
                env,
                game,
                waiting,
                "receipt",
                _l(
                    "Jaipur vs %(opponent)s — move %(n)s recorded",
                    opponent=names[to_move],
                    n=moved.n,
                ),
                mine=waiting == moved.seat,
                **common,
            )
        )
    return mails


def link(session: Session, env: Env, game: Game, seat: int, token: str, *, reissued: bool) -> None:
    opponent = game.seats[1 - seat].name
    subject = (
        _l("Jaipur vs %(opponent)s — your new link", opponent=opponent)
        if reissued
        else _l("Jaipur vs %(opponent)s — your link", opponent=opponent)
    )
    _queue(session, env, game, seat, "link", subject, link=env.seat_url(token), reissued=reissued)


def reminder(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    next_n: int,
    turn_n: int,
    k: int,
    match: Match,
    deadline: datetime | None,
    since: datetime,
) -> bool:
    """The k-th reminder of the turn that waits for move ``turn_n`` (queued once)."""
    return _queue(
        session,
        env,
        game,
        seat,
        "reminder",
        _l(
            "Jaipur vs %(opponent)s — reminder: your move (%(n)s)",
            opponent=game.seats[1 - seat].name,
            n=turn_n,
        ),
        dedupe=f"reminder:{game.id}:{turn_n}:{k}",
        reply_n=next_n,
        deadline=deadline,
        since=since,
        view=jaipur.seat_view(match, seat),
        n=next_n - 1,
    )


def deadline_warning(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    next_n: int,
    turn_n: int,
    deadline: datetime,
) -> bool:
    return _queue(
        session,
        env,
        game,
        seat,
        "deadline_warning",
        _l(
            "Jaipur vs %(opponent)s — your time runs out soon (move %(n)s)",
            opponent=game.seats[1 - seat].name,
            n=turn_n,
        ),
        dedupe=f"warning:{game.id}:{turn_n}",
        reply_n=next_n,
        deadline=deadline,
    )


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
    if outbox.queued(session, key):  # before rendering it: a job that runs twice
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
    return outbox.queue(
        session,
        outbox.message(
            now=env.clock.now(),
            mail_from=env.config.mail_from,
            kind="digest",
            to=f"{name} <{email}>",
            subject=subject,
            text=text,
            html=html,
            dedupe_key=key,
            language=reader.language,
        ),
    )


def refusal(
    session: Session,
    env: Env,
    to: str,
    *,
    read: str,
    reason: Any,
    examples: list[str],
    game: Game | None = None,
    seat: int | None = None,
    in_reply_to: str | None = None,
    reader: Reader | None = None,
) -> None:
    """The answer to a reply that recorded nothing: what was read, why, what would work."""
    context = dict(
        read=read,
        reason=reason,
        examples=examples,
        now=env.clock.now(),
        link=seat_link(env, game, seat) if game is not None and seat is not None else None,
    )
    reader = reader or Reader()
    with use_reader(reader.language, reader.timezone):
        text, html = compose.render("refusal", **context)
        subject = gettext("Jaipur: your move was not recorded")
    headers = {}
    if in_reply_to:
        headers = {"In-Reply-To": in_reply_to, "References": in_reply_to}
    outbox.queue(
        session,
        outbox.message(
            now=env.clock.now(),
            mail_from=env.config.mail_from,
            kind="refusal",
            to=to,
            subject=subject,
            text=text,
            html=html,
            game_id=game.id if game is not None else None,
            seat=seat,
            headers=headers,
            language=reader.language,
        ),
    )
