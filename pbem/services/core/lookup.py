"""Reading a game: its row, its log, its replayed state; opening a seat link (its use goes
to the access log, ``access.py``).

Every use case starts here, so no use case reads the log or checks a link its own way.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.orm import Session

from ... import engine as jaipur
from ...clock import iso
from ...engine import Match
from ...engine.record import LoggedMove
from ...i18n import lazy_gettext as _l
from ...store import games, move_log
from ...store.models import Game, MoveRow, Seat
from .access import Client, log_seat_use
from .env import Env
from .errors import Frozen, Missing, NotAllowed, NotStarted
from .integrity import chain_prefix, flag, replay_break
from .replayed import cached_match, note_tail, seat_names, start


def game_row(session: Session, public_id: str, *, lock: bool = False) -> Game:
    game = games.by_public_id(session, public_id, lock=lock)
    if game is None:
        raise Missing(_l("There is no game with that id."))
    return game


def log_rows(session: Session, game: Game) -> list[MoveRow]:
    return move_log.rows(session, game.id)


def logged_moves(rows: list[MoveRow]) -> list[LoggedMove]:
    return [LoggedMove(r.n, r.move, r.seat, iso(r.at), r.hash, r.position) for r in rows]


def state_of(env: Env, game: Game, rows: list[MoveRow]) -> Match:
    """``replay(seed, log)`` of these rows, from the per-process cache when it holds this log.

    ``Frozen`` for a flagged game, and for one whose rows do not chain or replay (it is
    flagged then): what follows from its log is not its state.
    """
    if not game.dealt:
        raise NotStarted()
    if game.integrity_error is not None:
        raise Frozen(game.integrity_error, game.id)
    match = cached_match(env, game, rows)
    return match if match is not None else _replayed(game, rows)


def _replayed(game: Game, rows: list[MoveRow]) -> Match:
    """The rows replayed, once each is seen to be the next of the chain."""
    _, why = chain_prefix(start(game, seat_names(game)).last_hash, rows)
    if why is None:
        try:
            return jaipur.replay_moves(
                bytes.fromhex(game.seed), logged_moves(rows), game.first_player
            )
        except jaipur.ReplayError as exc:
            why = replay_break(exc)
    flag(game, why)
    raise Frozen(why, game.id)


def game_by_id(session: Session, game_id: int) -> Game:
    """A game with its seats and its log's tail, in one query (the sender writes its mails)."""
    found = games.with_tail_by_id(session, game_id)
    if found is None:
        raise Missing(_l("There is no game with that id."))
    game, tail_n, tail_hash = found
    note_tail(session, game, tail_n, tail_hash)
    return game


class Key(Protocol):
    """A verified claim to a seat: a seat link's or a reply address's."""

    @property
    def public_id(self) -> str: ...
    @property
    def seat(self) -> int: ...
    @property
    def key_version(self) -> int: ...


def open_claim(
    session: Session, claim: Key | None, *, lock: bool = False, vacations: bool = False
) -> tuple[Game, Seat]:
    """The game and seat a genuine claim opens, if its key version is still current.

    ``vacations``: load the seats' vacations in the same query (a seat page shows them).
    """
    if claim is None:
        raise NotAllowed()
    found = games.with_tail(session, claim.public_id, lock=lock, vacations=vacations)
    if found is None:
        raise NotAllowed()
    game, tail_n, tail_hash = found
    note_tail(session, game, tail_n, tail_hash)
    seat = game.seats[claim.seat]
    if seat.key_version != claim.key_version or seat.bot is not None:
        raise NotAllowed()  # no link opens the computer's seat, not even its own token
    return game, seat


def authenticate(
    env: Env, session: Session, token: str, *, lock: bool = False, vacations: bool = False
) -> tuple[Game, Seat]:
    """Open a seat link (NotAllowed for anything forged, altered, revoked or unknown)."""
    return open_claim(session, env.links.open_seat(token), lock=lock, vacations=vacations)


def use_seat(
    env: Env,
    session: Session,
    token: str,
    action: str,
    client: Client,
    *,
    detail: str | None = None,
) -> tuple[Game, Seat, list[MoveRow]]:
    """Open a seat link and record that use in the access log; returns the whole log as well."""
    game, seat = authenticate(env, session, token)
    rows = log_rows(session, game)
    log_seat_use(session, env, game, seat, action, client, seen_n=len(rows), detail=detail)
    return game, seat, rows
