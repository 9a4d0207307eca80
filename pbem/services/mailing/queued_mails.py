"""The mails to a seat written when they are queued: the invitation, the deal, a link,
and the two mails about a move still owed (a reminder, a deadline warning)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy.orm import Session

from ... import engine as jaipur
from ...clock import iso
from ...engine import Match
from ...i18n import lazy_gettext as _l
from ...mail import outbox_row
from ...store.models import Game
from ..core.env import Env
from ..core.lookup import log_rows
from ..core.replayed import owed_entry, seat_names
from .seat_mail import queue_written
from .told import Moved


def invitation(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    token: str,
    match: Match | None,
    *,
    event: dict[str, Any] | None = None,
    opened: Moved | None = None,
) -> None:
    """The first mail of a game; ``match`` is None while the game waits to be accepted.
    ``event`` (its name, url and round): an event's round, whose one mail to a player is
    this invitation, naming the event, the round and the opponent. ``opened``: the
    opponent's first move, made already (the computer's, in an event), told here."""
    opponent = seat_names(game)[1 - seat]
    starts = match is not None and match.to_move == seat and opened is None
    reply_n = opened.n + 1 if opened is not None else 1 if starts else None
    subject = (
        _l("Jaipur vs %(opponent)s — a new game", opponent=opponent)
        if event is None
        else _l(
            "%(event)s, round %(round)s: Jaipur vs %(opponent)s",
            event=event["name"],
            round=event["round"],
            opponent=opponent,
        )
    )
    queue_written(
        session,
        env,
        game,
        seat,
        "invitation",
        subject,
        link=env.seat_url(token),
        waiting=match is None,
        view=jaipur.seat_view(match, seat) if match is not None else None,
        starts=_l("You move first.") if starts else _l("%(name)s moves first.", name=opponent),
        reply_n=reply_n,
        answer_n=reply_n or 1,  # the second player's reply is read, and told whose turn it is
        message_id=outbox_row.thread_id(game.public_id, seat, env.config.mail_from),
        event=event,
        opened=opened,
    )


def event_round(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    token: str,
    match: Match,
    *,
    event: str,
    event_url: str,
    round_no: int,
    opened: Moved | None = None,
) -> None:
    """The one mail of an event's round to a player (``services/events/rounds.py``);
    ``opened``: the computer's first move, made before it."""
    event_of = {"name": event, "url": event_url, "round": round_no}
    invitation(session, env, game, seat, token, match, event=event_of, opened=opened)


def dealt(
    session: Session, env: Env, game: Game, seat: int, match: Match, *, held: bool = False
) -> None:
    """Both players accepted: the cards are dealt from the mixed seed.

    ``held``: the seat dealt it from its own page (a game against the computer), which
    shows the deal at once; held and dropped as a "your turn" is (``Writer.unwanted``)."""
    opponent = seat_names(game)[1 - seat]
    starts = match.to_move == seat
    hold = timedelta(seconds=env.config.turn_mail_hold)
    queue_written(
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
        answer_n=1,
        not_before=env.clock.now() + hold if held else None,
    )


def link(session: Session, env: Env, game: Game, seat: int, token: str, *, reissued: bool) -> None:
    opponent = seat_names(game)[1 - seat]
    subject = (
        _l("Jaipur vs %(opponent)s — your new link", opponent=opponent)
        if reissued
        else _l("Jaipur vs %(opponent)s — your link", opponent=opponent)
    )
    queue_written(
        session,
        env,
        game,
        seat,
        "link",
        subject,
        answer_n=owed_entry([row.move for row in log_rows(session, game)]),
        link=env.seat_url(token),
        reissued=reissued,
    )


@dataclass(frozen=True, slots=True)
class Turn:
    """The turn a reminder or a warning is about."""

    owed: int  #: the record's number handed out for the move (``played.owed_entry``): the
    #: reply address, and the key that queues each mail once, both unchanged by a timeout
    shown: int  #: the number players see for that move (``played.next_turn``)


Owed = Literal["reminder", "deadline_warning"]

#: The subject of each mail about a move still owed.
_OWED_SUBJECTS: dict[Owed, Callable[[str, int], Any]] = {
    "reminder": lambda opponent, n: _l(
        "Jaipur vs %(opponent)s — reminder: your move (%(n)s)", opponent=opponent, n=n
    ),
    "deadline_warning": lambda opponent, n: _l(
        "Jaipur vs %(opponent)s — your time runs out soon (move %(n)s)", opponent=opponent, n=n
    ),
}


def owed_move(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    turn: Turn,
    kind: Owed,
    *,
    once: str,
    **context: Any,
) -> bool:
    """A reminder or a deadline warning of the move ``turn``, queued once under ``once``;
    its Reply-To plays the owed move. False if it was queued before."""
    subject = _OWED_SUBJECTS[kind](seat_names(game)[1 - seat], turn.shown)
    return queue_written(
        session, env, game, seat, kind, subject, dedupe=once, reply_n=turn.owed, **context
    )


def reminder(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    turn: Turn,
    k: int,
    match: Match,
    deadline: datetime | None,
    since: datetime,
) -> bool:
    """The k-th reminder of the turn (queued once)."""
    return owed_move(
        session,
        env,
        game,
        seat,
        turn,
        "reminder",
        once=f"reminder:{game.id}:{turn.owed}:{k}",
        deadline=deadline,
        since=since,
        view=jaipur.seat_view(match, seat),
        n=turn.shown - 1,  # the template says "your move n + 1", as its subject
    )


def deadline_warning(
    session: Session, env: Env, game: Game, seat: int, turn: Turn, deadline: datetime
) -> bool:
    """The warning that the turn's time runs out soon: once per deadline, as time away
    moves the deadline, and the moved one is warned of again."""
    return owed_move(
        session,
        env,
        game,
        seat,
        turn,
        "deadline_warning",
        once=f"warning:{game.id}:{turn.owed}:{iso(deadline)}",
        deadline=deadline,
    )
