"""A stored log that stops verifying: found as it is read, flagged, and the game frozen.

``game_records.verify_game`` (``pbem verify --game``) checks everything a record carries.
Reading a game checks what is cheap on every full read: each row is the next of the
chain (its number, and its hash from the previous one, seat, move and time) and
replays. The first row that fails ends what is shown: pages show the game as far as
its log verifies, with the flag; the rest is never served as if it were true.

A flagged game (``Game.integrity_error``) is frozen: no move, resignation, claim or
timeout is logged in it, and no reminder is sent, until an operator has looked. The
flag is never cleared here, so a log put back as it was is not silently trusted again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import object_session

from ...clock import iso
from ...engine import ReplayError, chain_break
from ...store import games
from ...store.models import Game
from .env import Env


@dataclass(frozen=True, slots=True)
class Flag:
    """What a page says of a game (or record file) whose log does not verify."""

    error: str  #: the check that broke and how, in the checker's own (English) words
    shown: int | None = None  #: the last move shown, when the moves after it are not
    record: bool = False  #: a record file rather than a stored game (not frozen: not ours)


def flag_json(flag: Flag) -> dict[str, Any]:
    """The flag as a JSON member (``"flagged"``) of a download or an API answer."""
    return {
        "integrity_error": flag.error,
        "frozen": True,
        "moves_shown": flag.shown,
        "note": "This game's stored log does not verify on the server, so the game is "
        "frozen: nothing more is logged in it until its operator has looked into it."
        + (
            f" Only moves 1 to {flag.shown} verify and are shown." if flag.shown is not None else ""
        ),
    }


@dataclass(frozen=True, slots=True)
class _Entry:
    """A stored row as the engine's chain check reads an entry: its time as the record
    writes it."""

    n: int
    seat: int | None
    move: str
    at: str | None
    hash: str | None


def entry_break(previous: str, n: int, row: Any) -> str | None:
    """Why ``row`` is not entry ``n`` of the chain after ``previous`` (None when it is).

    The engine's check, named as ``verify`` names it (``chain``), so the flag a page sets
    reads the same as the one ``pbem verify --game`` sets.
    """
    at = row.at if row.at is None or isinstance(row.at, str) else iso(row.at)
    why = chain_break(previous, n, _Entry(row.n, row.seat, row.move, at, row.hash))
    return None if why is None else f"chain: {why}"


def chain_prefix(origin: str, rows: list[Any]) -> tuple[int, str | None]:
    """How many rows, from the first, chain from ``origin`` (``hash_0``); why the next does not."""
    previous = origin
    for i, row in enumerate(rows, start=1):
        why = entry_break(previous, i, row)
        if why is not None:
            return i - 1, why
        previous = row.hash
    return len(rows), None


def replay_break(error: ReplayError) -> str:
    """A replay refusal, worded as ``verify``'s replay check words it."""
    return f"replay: {error}"


def flag(game: Game, reason: str) -> None:
    """Flag ``game`` in the session that loaded it (the first reason found stays).

    Flushed at once: a seat page reads in autocommit, where only a flushed change is kept;
    a transaction keeps it when it commits.
    """
    if game.integrity_error is not None:
        return
    game.integrity_error = reason[:1000]
    session = object_session(game)
    if session is not None:
        session.flush()


def keep_flag(env: Env, game_id: int | None, reason: str) -> None:
    """Flag a game in a transaction of its own: for a use case whose own transaction was
    rolled back by the refusal that found the break."""
    if game_id is None:
        return
    with env.db.write() as session:
        games.flag(session, game_id, reason[:1000])
