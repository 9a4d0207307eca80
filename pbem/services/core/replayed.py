"""A game's log replayed and narrated, kept per process and extended move by move.

Invariant 1 says state is ``replay(seed, log)`` and a cache of it is never
authoritative. Pages need more than the position: every logged move in words.
Replaying *and* narrating the whole log on every request made a page's cost grow
with the game, and with several workers each new move missed the cache of three
workers in four. So each process keeps, per game, what it has replayed so far and
reads only the rows past it: ``n >= cached n``. The first row it reads back is the
last one it already has, and its stored chain hash must be the cached one, or the
cache is dropped and the log replayed from the start. A log is append-only, so a
matching last hash means the prefix is the one that was replayed.

A request that opens a seat reads the log's tail (last ``n`` and hash) with the
game's row (``note_tail``); when the cache already ends there, no row is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ... import engine as jaipur
from ...clock import as_utc, iso
from ...engine import Match, MoveError
from ...engine.explain import Account, narrate
from ...engine.record import Digest
from ...i18n.words import BotName, ComputerName
from ...store import move_log
from ...store.models import Game, MoveRow
from ...store.move_log import LogRow
from ...store.players import is_bot_address
from .env import Env
from .errors import NotStarted
from .integrity import entry_break, flag, replay_break


def next_turn(last_turn: int, last_move: str | None) -> int:
    """The number players see for the entry after one numbered ``last_turn`` that logged
    ``last_move`` (None: no entry yet, so 1).

    The record numbers every entry (docs/record-format.md §4), a ``timeout`` too; mails and
    pages number the moves of the game, which a timeout does not make. A timeout takes the
    number of the move it is late for, and so does what comes next: the late move itself,
    or the claim made instead of it. So the reminders, the warning, the timeout, the late
    move and the claim all name one move.
    """
    if last_move is None:
        return 1
    return last_turn if last_move == "timeout" else last_turn + 1


def turn_after(moves: Sequence[str]) -> int:
    """The number players see for the entry after these logged ones (``next_turn``)."""
    turn, last = 0, None
    for move in moves:
        turn, last = next_turn(turn, last), move
    return next_turn(turn, last)


def owed_entry(moves: Sequence[str]) -> int:
    """The record's number a reply address, a form or an API call carries for the move owed
    after these logged entries: the next entry's, or, after the clock's ``timeout`` entries,
    the first of them. A timeout is not a move the player made, so what was handed out for
    the move before it stays valid (``answers_owed``), and every mail of that move carries
    one address."""
    n = len(moves)
    while n and moves[n - 1] == "timeout":
        n -= 1
    return n + 1


def answers_owed(moves: Sequence[str], n: int) -> bool:
    """Whether something made for entry ``n`` (a reply address, a form, an API call) is for
    the move owed after these logged entries: the next entry, or an earlier one when only
    the clock's timeout entries were logged since."""
    return owed_entry(moves) <= n <= len(moves) + 1


@dataclass(frozen=True, slots=True)
class Entry:
    """A logged move as pages show it: ``n`` its number in the record, ``turn`` the number
    mails and pages call it by (``next_turn``)."""

    n: int
    turn: int
    seat: int
    name: str
    move: str
    words: Account
    at: datetime
    source: str
    hash: str
    message: str | None
    ended: jaipur.RoundResult | None = None  # the round this move ended, if it ended one


@dataclass(frozen=True, slots=True)
class ReplayedLog:
    """The position after the whole log, and the log narrated for pages.

    With ``broken``, only the log as far as it verifies: the row after the last entry
    does not extend the chain or does not replay, and ``broken`` says why.
    """

    start: str  # hash_0 of the chain (``chain_start``)
    names: tuple[str, str]
    match: Match
    entries: tuple[Entry, ...]
    broken: str | None = None

    @property
    def n(self) -> int:
        """How many entries the log holds (the next move is ``n + 1``)."""
        return len(self.entries)

    def answers(self, n: int) -> bool:
        """Whether a reply, form or API call made for entry ``n`` is for the move owed now
        (``answers_owed``)."""
        return answers_owed([e.move for e in self.entries], n)

    @property
    def owed_n(self) -> int:
        """The record's number handed out for the move owed now (``owed_entry``)."""
        return owed_entry([e.move for e in self.entries])

    @property
    def next_turn(self) -> int:
        """The number players see for the next entry (``next_turn``)."""
        last = self.entries[-1] if self.entries else None
        return next_turn(last.turn, last.move) if last else 1

    @property
    def last_hash(self) -> str:
        """The chain hash the next move extends: the last entry's, or ``hash_0``."""
        return self.entries[-1].hash if self.entries else self.start

    def then(self, after: Match, words: Account, row: LogRow | Any) -> ReplayedLog:
        """This log with one more entry whose position and words are already known."""
        ended = after.ended_result
        last = self.entries[-1] if self.entries else None
        entry = Entry(
            row.n,
            next_turn(last.turn, last.move) if last else 1,
            row.seat,
            self.names[row.seat],
            row.move,
            words,
            as_utc(row.at),
            row.source,
            row.hash,
            row.message,
            ended,
        )
        return ReplayedLog(self.start, self.names, after, (*self.entries, entry))

    def extended(self, rows: Sequence[Any]) -> ReplayedLog:
        """This log with ``rows`` (the entries after it, in order) replayed and narrated."""
        played = self
        for row in rows:
            before = played.match
            try:
                move = jaipur.parse_move(row.move)
                after = before.apply(move, row.seat)
            except MoveError as exc:
                raise jaipur.ReplayError(row.n, row.move, exc) from None
            words = narrate(before, move, row.seat, self.names[row.seat])
            played = played.then(after, words, row)
        return played

    def checked(self, rows: Sequence[Any]) -> ReplayedLog:
        """This log extended by ``rows`` as far as each is the next of the chain and
        replays; at the first that is not, the log ends there, with ``broken`` set."""
        played = self
        for row in rows:
            why = entry_break(played.last_hash, played.n + 1, row)
            if why is not None:
                return replace(played, broken=why)
            before = played.match
            try:
                move = jaipur.parse_move(row.move)
                after = before.apply(move, row.seat)
            except MoveError as exc:
                error = jaipur.ReplayError(row.n, row.move, exc)
                return replace(played, broken=replay_break(error))
            words = narrate(before, move, row.seat, self.names[row.seat])
            played = played.then(after, words, row)
        return played


def start(game: Game, names: tuple[str, str]) -> ReplayedLog:
    """A dealt game before its first move."""
    if not game.dealt:
        raise NotStarted()
    return ReplayedLog(
        chain_start(game), names, Match.new(bytes.fromhex(game.seed), game.first_player), ()
    )


def chain_start(game: Game) -> str:
    """``hash_0`` of the game's chain in its record format (docs/record-format.md §4, §6)."""
    return jaipur.chain_start(
        game.record_format,
        game.commitment,
        game_id=game.public_id,
        created_at=iso(game.created_at),
        first_player=game.first_player,
        rules=game.rules,
    )


def position_digester(game: Game) -> Digest:
    """How the game's record format digests the position after each move."""
    return jaipur.position_digester(game.record_format, bytes.fromhex(game.seed))


def seat_names(game: Game) -> tuple[str, str]:
    """The seats' names; the computer's is shown in the reader's words (``ComputerName``),
    a bot account's with its badge (``BotName``, docs/bots.md)."""
    return (_seat_name(game.seats[0]), _seat_name(game.seats[1]))


def _seat_name(seat: Any) -> str:
    if seat.bot:
        return ComputerName(seat.name, seat.bot)
    return BotName(seat.name) if is_bot_address(seat.email) else seat.name


def _rows_from(session: Session, game: Game, n: int) -> list[Any]:
    return move_log.read_from(session, game.id, n)


_TAILS = "pbem_log_tails"


def note_tail(session: Session, game: Game, n: int | None, hash_: str | None) -> None:
    """What the game's own query saw of the end of its log (None, None: no move yet)."""
    session.info.setdefault(_TAILS, {})[game.id] = (n or 0, hash_ or chain_start(game))


def replay_log(env: Env, session: Session, game: Game) -> ReplayedLog:
    """The game replayed to its last logged move, reading only what this process lacks."""
    names = seat_names(game)
    cached: ReplayedLog | None = env.cache.get(game.id)
    # Taken, not read: once this transaction appends, the tail it noted is old.
    tail = session.info.get(_TAILS, {}).pop(game.id, None)
    if cached is not None and cached.start == chain_start(game) and cached.names == names:
        if tail == (cached.n, cached.last_hash):
            return cached
        rows = _rows_from(session, game, max(cached.n, 1))
        if cached.n == 0:
            result = cached.checked(rows)
        elif rows and rows[0].n == cached.n and rows[0].hash == cached.last_hash:
            result = cached.checked(rows[1:])
        else:  # not the log this process replayed: never trust it
            result = start(game, names).checked(_rows_from(session, game, 1))
    else:
        result = start(game, names).checked(_rows_from(session, game, 1))
    if result.broken is not None:
        flag(game, result.broken)  # and never cached: each read finds the break again
    elif result is not cached:
        env.cache.put(game.id, result)
    return result


def remember(env: Env, game_id: int, result: ReplayedLog) -> None:
    """Keep a log this process has just committed, so its next read starts there."""
    env.cache.put(game_id, result)


def cached_match(env: Env, game: Game, rows: Sequence[MoveRow]) -> Match | None:
    """The cached position, if it is of exactly this log (same length, same last hash)."""
    cached = env.cache.get(game.id)
    if cached is None or cached.n != len(rows):
        return None
    start = chain_start(game)
    if cached.start != start:
        return None
    return cached.match if cached.last_hash == (rows[-1].hash if rows else start) else None
