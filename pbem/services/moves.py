"""Previewing and making moves (DESIGN.md invariant 3).

A move is: open the seat's key (a seat link, or a reply address), read the log,
replay it, let the engine check the move, INSERT it as ``n = last + 1`` with its
chain hash, queue the mails, commit. A racing duplicate fails on
``UNIQUE(game_id, n)`` (or, on PostgreSQL, waits on the game's row lock and then
sees the longer log) and gets "the game has moved on". Web, API, email replies
and the scheduler's timeouts all come through ``_append``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from .. import engine as jaipur
from ..clock import iso
from ..engine import Claim, MoveError, Resign, Timeout
from ..engine.explain import narrate, preview
from ..store.models import Game, MoveRow, Seat
from . import notify, ratings
from .env import Env
from .errors import MOVED_ON, Conflict, MoveRefused, ServiceError
from .links import ReplyClaim
from .log import (
    Client,
    Key,
    authenticate,
    log_rows,
    open_claim,
    record_access,
    record_refusal,
    seat_names,
    state_of,
)

MESSAGE_LIMIT = 500
Opener = Callable[[Session], tuple[Game, Seat]]


@dataclass(frozen=True, slots=True)
class MoveDone:
    n: int
    move: str
    hash: str
    words: str
    game_over: bool
    to_move: int | None = None  # who moves next (None once the game is over)


@dataclass(frozen=True, slots=True)
class Preview:
    move: str
    words: str


def _parse(text: str) -> jaipur.Move:
    try:
        return jaipur.parse_move(text)
    except MoveError as exc:
        raise MoveRefused(exc) from None


def clean_message(text: str | None) -> str | None:
    """A note to the opponent: trimmed, at most 500 characters, or nothing."""
    text = " ".join((text or "").split())
    return text[:MESSAGE_LIMIT] or None


def preview_move(env: Env, token: str, expected_n: int, text: str, client: Client) -> Preview:
    """Say in words what a move would do, changing nothing but the access log."""
    try:
        with env.db.write() as session:
            game, seat = authenticate(env, session, token)
            rows = log_rows(session, game)
            if expected_n != len(rows) + 1:
                raise Conflict(MOVED_ON)
            move = _parse(text)
            _check_policy(game, move)
            try:
                words = preview(state_of(env, game, rows), move, seat.seat)
            except MoveError as exc:
                raise MoveRefused(exc) from None
            record_access(
                session,
                env,
                game,
                seat.seat,
                "preview",
                client,
                seen_n=len(rows),
                key_version=seat.key_version,
                detail=str(move),
            )
            return Preview(str(move), words)
    except (MoveRefused, Conflict) as exc:
        record_refusal(
            env,
            env.links.open_seat(token),
            "refused-preview",
            client,
            f"{text!r}: {exc.message}",
            expected_n - 1,
        )
        raise


def submit_move(
    env: Env,
    token: str,
    expected_n: int,
    text: str,
    client: Client,
    *,
    source: str = "web",
    message: str | None = None,
) -> MoveDone:
    """Record a move from a seat link; a refused move records nothing but the refusal."""
    return _submit(env, env.links.open_seat(token), expected_n, text, client, source, message)


def submit_reply(
    env: Env, claim: ReplyClaim, text: str, message: str | None, client: Client
) -> MoveDone:
    """Record a move mailed to a reply address (the same checks as the web)."""
    return _submit(env, claim, claim.n, text, client, "email", message)


def _submit(
    env: Env,
    claim: Key | None,
    expected_n: int,
    text: str,
    client: Client,
    source: str,
    message: str | None,
) -> MoveDone:
    try:
        return _append(
            env,
            lambda s: open_claim(s, claim, lock=True),
            expected_n,
            client,
            source,
            lambda: _parse(text),
            clean_message(message),
        )
    except (MoveRefused, Conflict) as exc:
        record_refusal(env, claim, "refused", client, f"{text!r}: {exc.message}", expected_n - 1)
        raise


def resign(
    env: Env, token: str, expected_n: int, client: Client, *, source: str = "web"
) -> MoveDone:
    return _append(
        env,
        lambda s: authenticate(env, s, token, lock=True),
        expected_n,
        client,
        source,
        Resign,
        None,
    )


def claim_win(env: Env, token: str, expected_n: int, client: Client) -> MoveDone:
    """The waiting seat claims the win after the other seat's timeout (if the game allows it)."""
    return _append(
        env,
        lambda s: authenticate(env, s, token, lock=True),
        expected_n,
        client,
        "web",
        Claim,
        None,
    )


def record_timeout(env: Env, game_id: int, expected_n: int) -> MoveDone | None:
    """The scheduler logs that the seat to move let its deadline pass (once: UNIQUE n)."""

    def opener(session: Session) -> tuple[Game, Seat]:
        game = session.get(Game, game_id, with_for_update=True)
        assert game is not None
        match = state_of(env, game, log_rows(session, game))
        if match.to_move is None:
            raise Conflict(MOVED_ON)
        return game, game.seats[match.to_move]

    try:
        return _append(
            env, opener, expected_n, Client(user_agent="pbem scheduler"), "timeout", Timeout, None
        )
    except (Conflict, MoveRefused):
        return None  # the seat moved meanwhile, or the timeout is logged already


def _check_policy(game: Game, move: jaipur.Move) -> None:
    if isinstance(move, Claim) and game.timeout_action != "claim":
        raise ServiceError("In this game a timeout does not give a win: the game waits.")


def _append(
    env: Env,
    opener: Opener,
    expected_n: int,
    client: Client,
    source: str,
    make_move: Callable[[], jaipur.Move],
    message: str | None,
) -> MoveDone:
    now = env.clock.now()
    try:
        with env.db.write() as session:
            game, seat = opener(session)
            rows = log_rows(session, game)
            n = len(rows) + 1
            if expected_n != n:
                raise Conflict(MOVED_ON)
            before = state_of(env, game, rows)
            move = make_move()
            _check_policy(game, move)
            try:
                after = before.apply(move, seat.seat)
            except MoveError as exc:
                raise MoveRefused(exc) from None
            names = seat_names(game)
            words = narrate(before, move, seat.seat, names[seat.seat])
            entry = jaipur.log_move(
                rows[-1].hash if rows else game.commitment, n, seat.seat, move, iso(now), after
            )
            session.add(
                MoveRow(
                    game_id=game.id,
                    n=n,
                    seat=seat.seat,
                    move=entry.move,
                    at=now.replace(microsecond=0),
                    hash=entry.hash,
                    position=entry.position,
                    source=source,
                    message=message,
                )
            )
            if after.is_over:
                game.status, game.finished_at = "finished", now
                assert after.winner is not None
                ratings.rate(session, game, after.winner, now)
            session.flush()
            env.cache.put((game.id, entry.hash), after)
            action = {Resign: "resign", Claim: "claim", Timeout: "timeout"}.get(type(move), "move")
            record_access(
                session,
                env,
                game,
                seat.seat,
                action,
                client,
                seen_n=n - 1,
                key_version=seat.key_version,
                detail=f"{entry.move} (via {source})",
            )
            ended = after.results[-1] if len(after.results) > len(before.results) else None
            notify.after_move(
                session,
                env,
                game,
                notify.Moved(seat.seat, n, entry.move, entry.hash, words, message, after, ended),
            )
            return MoveDone(n, entry.move, entry.hash, words, after.is_over, after.to_move)
    except IntegrityError:
        raise Conflict(MOVED_ON) from None
    except OperationalError as exc:  # SQLite: the other writer held the lock for too long
        if "locked" in str(exc):
            raise Conflict(MOVED_ON) from None
        raise
