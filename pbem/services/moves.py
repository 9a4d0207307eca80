"""Previewing and making moves (DESIGN.md invariant 3).

A move is: open the seat link, read the log, replay it, let the engine check the
move, INSERT it as ``n = last + 1`` with its chain hash, queue the mails, commit.
A racing duplicate fails on ``UNIQUE(game_id, n)`` (or, on PostgreSQL, waits on
the game's row lock and then sees the longer log) and gets "the game has moved on".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError, OperationalError

from .. import engine as jaipur
from ..clock import iso
from ..engine import MoveError, Resign
from ..engine.explain import narrate, preview
from ..store.models import MoveRow
from . import notify
from .env import Env
from .errors import MOVED_ON, Conflict, MoveRefused
from .log import Client, authenticate, log_rows, record_access, record_refusal, seat_names, state_of


@dataclass(frozen=True, slots=True)
class MoveDone:
    n: int
    move: str
    hash: str
    words: str
    game_over: bool


@dataclass(frozen=True, slots=True)
class Preview:
    move: str
    words: str


def _parse(text: str) -> jaipur.Move:
    try:
        return jaipur.parse_move(text)
    except MoveError as exc:
        raise MoveRefused(exc) from None


# ---------------------------------------------------------------- use cases


def preview_move(env: Env, token: str, expected_n: int, text: str, client: Client) -> Preview:
    """Say in words what a move would do, changing nothing but the access log."""
    try:
        return _preview(env, token, expected_n, text, client)
    except (MoveRefused, Conflict) as exc:
        record_refusal(
            env, token, "refused-preview", client, f"{text!r}: {exc.message}", expected_n - 1
        )
        raise


def _preview(env: Env, token: str, expected_n: int, text: str, client: Client) -> Preview:
    with env.db.write() as session:
        game, seat = authenticate(env, session, token)
        rows = log_rows(session, game)
        if expected_n != len(rows) + 1:
            raise Conflict(MOVED_ON)
        match = state_of(env, game, rows)
        move = _parse(text)
        try:
            words = preview(match, move, seat.seat)
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


def submit_move(
    env: Env, token: str, expected_n: int, text: str, client: Client, *, source: str = "web"
) -> MoveDone:
    """Record a move (invariant 3); refused moves record nothing but the refusal."""
    try:
        return _append(env, token, expected_n, client, source, lambda: _parse(text))
    except (MoveRefused, Conflict) as exc:
        record_refusal(env, token, "refused", client, f"{text!r}: {exc.message}", expected_n - 1)
        raise


def resign(
    env: Env, token: str, expected_n: int, client: Client, *, source: str = "web"
) -> MoveDone:
    return _append(env, token, expected_n, client, source, Resign)


def _append(
    env: Env, token: str, expected_n: int, client: Client, source: str, make_move: Any
) -> MoveDone:
    now = env.clock.now()
    try:
        with env.db.write() as session:
            game, seat = authenticate(env, session, token, lock=True)
            rows = log_rows(session, game)
            n = len(rows) + 1
            if expected_n != n:
                raise Conflict(MOVED_ON)
            before = state_of(env, game, rows)
            move = make_move()
            try:
                after = before.apply(move, seat.seat)
            except MoveError as exc:
                raise MoveRefused(exc) from None
            names = seat_names(game)
            words = narrate(before, move, seat.seat, names[seat.seat])
            entry = jaipur.log_move(
                rows[-1].hash if rows else game.commitment, n, seat.seat, move, iso(now), after
            )
            row = MoveRow(
                game_id=game.id,
                n=n,
                seat=seat.seat,
                move=entry.move,
                at=now.replace(microsecond=0),
                hash=entry.hash,
                position=entry.position,
                source=source,
            )
            session.add(row)
            if after.is_over:
                game.status, game.finished_at = "finished", now
            session.flush()
            env.cache.put((game.id, entry.hash), after)
            record_access(
                session,
                env,
                game,
                seat.seat,
                "resign" if isinstance(move, Resign) else "move",
                client,
                seen_n=n - 1,
                key_version=seat.key_version,
                detail=entry.move,
            )
            ended = after.results[-1] if len(after.results) > len(before.results) else None
            notify.after_move(
                session, env, game, seat.seat, n, entry.move, entry.hash, words, after, ended
            )
            return MoveDone(n, entry.move, entry.hash, words, after.is_over)
    except IntegrityError:
        raise Conflict(MOVED_ON) from None
    except OperationalError as exc:  # SQLite: the other writer held the lock for too long
        if "locked" in str(exc):
            raise Conflict(MOVED_ON) from None
        raise
