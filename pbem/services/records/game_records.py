"""Exporting records and verifying stored games (docs/record-format.md §4).

A game whose stored log no longer verifies is flagged, never silently repaired.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ... import engine as jaipur
from ...ai.reproduce import computer_field
from ...clock import iso
from ...engine import Match
from ...engine.record import LoggedMove, Record
from ...engine.verify import Verification
from ...i18n import lazy_gettext as _l
from ...store import games as game_rows
from ...store.models import Game, MoveRow
from ..core.access import Client, log_game_access
from ..core.env import Env
from ..core.errors import InvalidInput, NotAllowed, NotStarted, flagged
from ..core.integrity import Flag, flag_json
from ..core.lookup import authenticate, game_row, log_rows, logged_moves
from ..core.replayed import ReplayedLog, replay_log, seat_names


def export_record(
    env: Env, public_id: str | None = None, token: str | None = None, client: Client | None = None
) -> dict[str, Any]:
    """The full record once the game is over; while it runs, only a seat's own view."""
    with env.db.write() as session:
        if token is not None:
            game, seat = authenticate(env, session, token)
            if public_id is not None and game.public_id != public_id:
                raise NotAllowed()
        elif public_id is not None:
            game, seat = game_row(session, public_id), None
        else:
            raise InvalidInput(_l("name a game or a seat"))
        rows = log_rows(session, game)
        log = replay_log(env, session, game)  # as far as the log verifies (flagged where not)
        match = log.match
        if seat is not None:
            log_game_access(
                session,
                env,
                game,
                seat.seat,
                "export",
                client or Client(),
                seen_n=len(rows),
                key_version=seat.key_version,
            )
        if match.is_over:
            final = None if log.broken else match  # no result for a log that stops verifying
            return _flagged(full_record(game, rows, final).to_json(), game, log)
        if seat is None:
            refusal = NotAllowed(_l("The record is published when the game ends."))
            raise flagged(refusal, game.integrity_error, log.n if log.broken else None)
        moves = logged_moves(rows)
        if game.record_format == jaipur.RECORD_V1:  # bare hashes of hidden cards: withheld
            moves = [LoggedMove(m.n, m.move, m.seat, m.at, m.hash) for m in moves]
        record = jaipur.build_record(
            seed=None,
            commitment=game.commitment,
            moves=moves,
            final=None,
            game_id=game.public_id,
            players=_players(game),
            created_at=iso(game.created_at),
            first_player=game.first_player,
            record_format=game.record_format,
        )
        data = record.to_json()
        data["view"] = {
            "seat": seat.seat,
            **jaipur.views.view_to_json(jaipur.seat_view(match, seat.seat)),
        }
        return _flagged(data, game, log)


def _flagged(data: dict[str, Any], game: Game, log: ReplayedLog) -> dict[str, Any]:
    """A record of a game whose log does not verify says so: its moves are as stored, for
    anyone to check (``pbem verify`` fails on them as the server did), and ``flagged`` says
    what broke and how far the log verifies."""
    if game.integrity_error is not None:
        data["flagged"] = flag_json(Flag(game.integrity_error, log.n if log.broken else None))
    return data


def _players(game: Game) -> list[dict[str, Any]]:
    return [{"seat": s.seat, "name": s.name} for s in game.seats]


def contributions(game: Game) -> tuple[bytes, bytes] | None:
    """Both seats' random bytes, once the game was dealt from them (docs/record-format.md §1.3)."""
    if game.server_seed is None:
        return None
    return (
        bytes.fromhex(game.seats[0].contribution or ""),
        bytes.fromhex(game.seats[1].contribution or ""),
    )


def full_record(game: Game, rows: list[MoveRow], match: Match | None) -> Record:
    """The record with the seed: published once the game is over, or the operator's copy.
    A game against the computer names, in ``computer``, its seat, its level and the program
    that chose each of its moves (docs/record-format.md §4.2), for ``pbem reproduce``."""
    if not game.dealt:
        raise NotStarted()
    record = jaipur.build_record(
        seed=bytes.fromhex(game.seed),
        commitment=game.commitment,
        moves=logged_moves(rows),
        final=match,
        game_id=game.public_id,
        players=_players(game),
        created_at=iso(game.created_at),
        first_player=game.first_player,
        server_seed=bytes.fromhex(game.server_seed) if game.server_seed else None,
        contributions=contributions(game),
        record_format=game.record_format,
    )
    bot = next((s for s in game.seats if s.bot is not None), None)
    if bot is None or bot.bot is None:
        return record
    programs = {r.n: r.program for r in rows if r.seat == bot.seat and r.source == "bot"}
    field = computer_field(bot.seat, bot.bot, programs)
    return replace(record, extra={**record.extra, "computer": field})


def verify_game(env: Env, public_id: str) -> Verification:
    """Check the stored log (chain, replay, positions); flag the game if it fails."""
    with env.db.write() as session:
        game = game_row(session, public_id)
        rows = log_rows(session, game)
        report = jaipur.verify(full_record(game, rows, None))
        status_ok = report.final is not None and report.final.status.value == game.status
        if not report.ok or not status_ok:
            failure = report.first_failure
            reason = (
                f"{failure.name}: {failure.detail}"
                if failure
                else f"the stored status {game.status!r} does not match the replay"
            )
            game.integrity_error = reason
        return report


def operator_record(env: Env, public_id: str) -> dict[str, Any]:
    """The full record with the seed, even while the game runs: for the operator's audits only."""
    with env.db.read() as session:
        game = game_row(session, public_id)
        rows = log_rows(session, game)
        log = replay_log(env, session, game)
        over = log.match.is_over and log.broken is None
        record = full_record(game, rows, log.match if over else None).to_json()
        return _flagged(record, game, log)


@dataclass(frozen=True, slots=True)
class HeldGame:
    """A game of this server that an uploaded record is a copy of, as the server names it."""

    public_id: str
    names: tuple[str, str]


#: Longer than any game id this server makes (10 characters): no lookup for it.
_MAX_GAME_ID = 32


def held_game(env: Env, record: Record) -> HeldGame | None:
    """The game of this server that ``record`` copies, or None: the same id and commitment,
    and the record's hash chain a prefix of the stored log's, entry by entry.

    The players' names are outside every hash (docs/record-format.md §4.2), so a copy of
    a real record with the names changed still verifies; the uploaded record's page shows
    the server's names beside the file's. A record is only called the server's when it
    also verifies (the caller's check), so equal hashes mean equal moves.
    """
    game_id, commitment = record.game_id, record.commitment
    if not game_id or len(game_id) > _MAX_GAME_ID or commitment is None:
        return None
    with env.db.read() as session:
        game = game_rows.by_public_id(session, game_id)
        if game is None or game.commitment != commitment:
            return None
        rows = log_rows(session, game)
        if len(record.moves) > len(rows):
            return None
        for entry, row in zip(record.moves, rows, strict=False):
            if entry.hash is None or (entry.n, entry.hash) != (row.n, row.hash):
                return None
        return HeldGame(game.public_id, seat_names(game))
