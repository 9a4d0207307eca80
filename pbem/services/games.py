"""The use cases of a game, one transaction each. Web, CLI and mail call only these.

Every state is ``replay(seed, log)`` (invariant 1). A move is: authenticate the
seat link, read the log, replay it, let the engine check the move, INSERT it as
``n = last + 1`` with its chain hash, queue the mails, commit (invariant 3). A
racing duplicate fails on ``UNIQUE(game_id, n)`` and gets "the game has moved on".
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from .. import engine as jaipur
from ..clock import as_utc, iso
from ..engine import Match, MoveError, Resign, rng
from ..engine.explain import narrate, preview
from ..engine.record import ENGINE, RULES, LoggedMove, Record, Verification
from ..store.models import AccessLog, Game, MoveRow, OutboxMessage, Seat
from . import notify
from .env import Env
from .errors import MOVED_ON, BadRequest, Conflict, Forbidden, MoveRefused, NotFound, RateLimited

PUBLIC_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i
EMAIL = re.compile(r"^[^@\s<>,;]+@[^@\s<>,;]+\.[^@\s<>,;]+$")
LINK_REQUESTS_PER_IP = (5, timedelta(minutes=10))
LINK_MAILS_PER_SEAT = (3, timedelta(hours=1))


@dataclass(frozen=True, slots=True)
class Client:
    """Who is on the other end of a request, for the access log."""

    ip: str | None = None
    user_agent: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerIn:
    name: str
    email: str


@dataclass(frozen=True, slots=True)
class Entry:
    """A logged move as pages show it."""

    n: int
    seat: int
    name: str
    move: str
    words: str
    at: datetime
    source: str
    hash: str


@dataclass(frozen=True, slots=True)
class GameInfo:
    public_id: str
    created_at: datetime
    commitment: str
    names: tuple[str, str]
    status: str
    integrity_error: str | None
    seed: str | None  # only once the game is over


@dataclass(frozen=True, slots=True)
class SeatPage:
    game: GameInfo
    seat: int
    token: str
    view: jaipur.SeatView
    entries: tuple[Entry, ...]
    next_n: int
    since: datetime
    legal_count: int


@dataclass(frozen=True, slots=True)
class PublicPage:
    game: GameInfo
    view: jaipur.PublicView
    entries: tuple[Entry, ...]
    since: datetime


@dataclass(frozen=True, slots=True)
class CreatedGame:
    public_id: str
    commitment: str
    tokens: tuple[str, str]


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


@dataclass(frozen=True, slots=True)
class GameSummary:
    public_id: str
    names: tuple[str, str]
    status: str
    moves: int
    created_at: datetime
    integrity_error: str | None


# ------------------------------------------------------------------ helpers


def _clean_player(player: PlayerIn, which: str) -> PlayerIn:
    name = " ".join(player.name.split())
    email = player.email.strip()
    if not 1 <= len(name) <= 80:
        raise BadRequest(f"{which}: a name of 1 to 80 characters, please")
    if len(email) > 254 or not EMAIL.match(email):
        raise BadRequest(f"{which}: '{email}' does not look like an email address")
    return PlayerIn(name, email)


def _new_public_id() -> str:
    return "".join(secrets.choice(PUBLIC_ID_ALPHABET) for _ in range(10))


def _game(session: Session, public_id: str, *, lock: bool = False) -> Game:
    query = select(Game).where(Game.public_id == public_id)
    if lock:
        query = query.with_for_update()
    game = session.scalars(query).one_or_none()
    if game is None:
        raise NotFound("There is no game with that id.")
    return game


def _rows(session: Session, game: Game) -> list[MoveRow]:
    return list(
        session.scalars(select(MoveRow).where(MoveRow.game_id == game.id).order_by(MoveRow.n))
    )


def _logged(rows: list[MoveRow]) -> list[LoggedMove]:
    return [LoggedMove(r.n, r.move, r.seat, iso(r.at), r.hash, r.position) for r in rows]


def _state(env: Env, game: Game, rows: list[MoveRow]) -> Match:
    key = (game.id, rows[-1].hash if rows else game.commitment)
    match = env.cache.get(key)
    if match is None:
        match = jaipur.replay_moves(bytes.fromhex(game.seed), _logged(rows), game.first_player)
        env.cache.put(key, match)
    return match


def _names(game: Game) -> tuple[str, str]:
    return (game.seats[0].name, game.seats[1].name)


def _info(game: Game, over: bool) -> GameInfo:
    return GameInfo(
        game.public_id,
        as_utc(game.created_at),
        game.commitment,
        _names(game),
        game.status,
        game.integrity_error,
        game.seed if over else None,
    )


def _entries(game: Game, rows: list[MoveRow]) -> tuple[Entry, ...]:
    names = _names(game)
    out = []
    states = jaipur.replay_states(bytes.fromhex(game.seed), _logged(rows), game.first_player)
    for row, before in zip(rows, states, strict=False):
        move = jaipur.parse_move(row.move)
        out.append(
            Entry(
                row.n,
                row.seat,
                names[row.seat],
                row.move,
                narrate(before, move, row.seat, names[row.seat]),
                as_utc(row.at),
                row.source,
                row.hash,
            )
        )
    return tuple(out)


def _since(game: Game, rows: list[MoveRow]) -> datetime:
    return as_utc(rows[-1].at if rows else game.created_at)


def _authenticate(
    env: Env, session: Session, token: str, *, lock: bool = False
) -> tuple[Game, Seat]:
    claim = env.links.open_seat(token)
    if claim is None:
        raise Forbidden()
    query = select(Game).where(Game.public_id == claim.public_id)
    game = session.scalars(query.with_for_update() if lock else query).one_or_none()
    if game is None:
        raise Forbidden()
    seat = game.seats[claim.seat]
    if seat.key_version != claim.key_version:
        raise Forbidden()
    return game, seat


def _access(
    session: Session,
    env: Env,
    game: Game,
    seat: int | None,
    action: str,
    client: Client,
    *,
    seen_n: int | None = None,
    key_version: int | None = None,
    detail: str | None = None,
) -> None:
    session.add(
        AccessLog(
            game_id=game.id,
            seat=seat,
            at=env.clock.now(),
            action=action,
            seen_n=seen_n,
            key_version=key_version,
            ip=(client.ip or "")[:64] or None,
            user_agent=(client.user_agent or "")[:300] or None,
            detail=detail,
        )
    )


def _log_refusal(
    env: Env, token: str, action: str, client: Client, detail: str, seen_n: int | None
) -> None:
    """Record a refused attempt in its own transaction: the refusal itself changed nothing."""
    claim = env.links.open_seat(token)
    if claim is None:
        return
    with env.db.write() as session:
        game = session.scalars(select(Game).where(Game.public_id == claim.public_id)).one_or_none()
        if game is not None:
            _access(
                session,
                env,
                game,
                claim.seat,
                action,
                client,
                seen_n=seen_n,
                key_version=claim.key_version,
                detail=detail[:500],
            )


def _parse(text: str) -> jaipur.Move:
    try:
        return jaipur.parse_move(text)
    except MoveError as exc:
        raise MoveRefused(exc) from None


# ---------------------------------------------------------------- use cases


def create_game(
    env: Env, players: tuple[PlayerIn, PlayerIn], *, first_player: int | None = None
) -> CreatedGame:
    """A new game: the seed drawn from ``secrets``, its commitment shown, both seats invited."""
    a = _clean_player(players[0], "First player")
    b = _clean_player(players[1], "Second player")
    if first_player not in (None, 0, 1):
        raise BadRequest("the first player is seat 0 or seat 1")
    seed = rng.new_seed()
    now = env.clock.now()
    with env.db.write() as session:
        game = Game(
            public_id=_new_public_id(),
            created_at=now,
            rules=RULES,
            engine=ENGINE,
            commitment=rng.commitment(seed),
            seed=seed.hex(),
            first_player=first_player,
            status="in_progress",
        )
        session.add(game)
        session.flush()
        for i, p in enumerate((a, b)):
            session.add(Seat(game_id=game.id, seat=i, name=p.name, email=p.email, key_version=1))
        session.flush()
        session.refresh(game)
        tokens = (
            env.links.seat_token(game.public_id, 0, 1),
            env.links.seat_token(game.public_id, 1, 1),
        )
        match = _state(env, game, [])
        for seat in (0, 1):
            notify.invitation(session, env, game, seat, tokens[seat], match)
        return CreatedGame(game.public_id, game.commitment, tokens)


def seat_page(env: Env, token: str, client: Client, *, action: str = "view") -> SeatPage:
    """What the seat link shows: that seat's view only (invariant 7), and the log."""
    with env.db.write() as session:
        game, seat = _authenticate(env, session, token)
        rows = _rows(session, game)
        match = _state(env, game, rows)
        _access(
            session,
            env,
            game,
            seat.seat,
            action,
            client,
            seen_n=len(rows),
            key_version=seat.key_version,
        )
        return SeatPage(
            game=_info(game, match.is_over),
            seat=seat.seat,
            token=token,
            view=jaipur.seat_view(match, seat.seat),
            entries=_entries(game, rows),
            next_n=len(rows) + 1,
            since=_since(game, rows),
            legal_count=len(match.legal_moves()) if match.to_move == seat.seat else 0,
        )


def public_page(env: Env, public_id: str) -> PublicPage:
    with env.db.read() as session:
        game = _game(session, public_id)
        rows = _rows(session, game)
        match = _state(env, game, rows)
        return PublicPage(
            _info(game, match.is_over),
            jaipur.public_view(match),
            _entries(game, rows),
            _since(game, rows),
        )


def preview_move(env: Env, token: str, expected_n: int, text: str, client: Client) -> Preview:
    """Say in words what a move would do, changing nothing but the access log."""
    try:
        return _preview(env, token, expected_n, text, client)
    except (MoveRefused, Conflict) as exc:
        _log_refusal(
            env, token, "refused-preview", client, f"{text!r}: {exc.message}", expected_n - 1
        )
        raise


def _preview(env: Env, token: str, expected_n: int, text: str, client: Client) -> Preview:
    with env.db.write() as session:
        game, seat = _authenticate(env, session, token)
        rows = _rows(session, game)
        if expected_n != len(rows) + 1:
            raise Conflict(MOVED_ON)
        match = _state(env, game, rows)
        move = _parse(text)
        try:
            words = preview(match, move, seat.seat)
        except MoveError as exc:
            raise MoveRefused(exc) from None
        _access(
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
        _log_refusal(env, token, "refused", client, f"{text!r}: {exc.message}", expected_n - 1)
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
            game, seat = _authenticate(env, session, token, lock=True)
            rows = _rows(session, game)
            n = len(rows) + 1
            if expected_n != n:
                raise Conflict(MOVED_ON)
            before = _state(env, game, rows)
            move = make_move()
            try:
                after = before.apply(move, seat.seat)
            except MoveError as exc:
                raise MoveRefused(exc) from None
            names = _names(game)
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
            _access(
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


def reissue_link(env: Env, token: str, client: Client) -> None:
    """Revoke this seat's links (bump the key version) and mail it a fresh one."""
    with env.db.write() as session:
        game, seat = _authenticate(env, session, token, lock=True)
        seat.key_version += 1
        new_token = env.links.seat_token(game.public_id, seat.seat, seat.key_version)
        _access(session, env, game, seat.seat, "reissue", client, key_version=seat.key_version - 1)
        notify.link(session, env, game, seat.seat, new_token, reissued=True)


def request_link(env: Env, public_id: str, email: str, client: Client) -> None:
    """Mail a seat its link if ``email`` is that seat's; the caller learns nothing either way."""
    now = env.clock.now()
    with env.db.write() as session:
        game = _game(session, public_id)
        limit, window = LINK_REQUESTS_PER_IP
        recent = session.scalar(
            select(func.count())
            .select_from(AccessLog)
            .where(
                AccessLog.action == "link-request",
                AccessLog.ip == client.ip,
                AccessLog.at >= now - window,
            )
        )
        if client.ip and recent >= limit:
            raise RateLimited("Too many requests for links from here; try again in a few minutes.")
        _access(session, env, game, None, "link-request", client)
        wanted = email.strip().casefold()
        for seat in game.seats:
            if seat.email.casefold() != wanted:
                continue
            limit, window = LINK_MAILS_PER_SEAT
            mailed = session.scalar(
                select(func.count())
                .select_from(OutboxMessage)
                .where(
                    OutboxMessage.game_id == game.id,
                    OutboxMessage.seat == seat.seat,
                    OutboxMessage.kind == "link",
                    OutboxMessage.created_at >= now - window,
                )
            )
            if mailed < limit:
                token = env.links.seat_token(game.public_id, seat.seat, seat.key_version)
                notify.link(session, env, game, seat.seat, token, reissued=False)


def export_record(
    env: Env, public_id: str | None = None, token: str | None = None, client: Client | None = None
) -> dict[str, Any]:
    """The full record once the game is over; while it runs, only a seat's own view."""
    with env.db.write() as session:
        if token is not None:
            game, seat = _authenticate(env, session, token)
            if public_id is not None and game.public_id != public_id:
                raise Forbidden()
        elif public_id is not None:
            game, seat = _game(session, public_id), None
        else:
            raise BadRequest("name a game or a seat")
        rows = _rows(session, game)
        match = _state(env, game, rows)
        if seat is not None:
            _access(
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
            return _record(game, rows, match).to_json()
        if seat is None:
            raise Forbidden("The record is published when the game ends.")
        record = jaipur.build_record(
            seed=None,
            commitment=game.commitment,
            moves=[LoggedMove(m.n, m.move, m.seat, m.at, m.hash) for m in _logged(rows)],
            final=None,
            game_id=game.public_id,
            players=_players(game),
            created_at=iso(game.created_at),
            first_player=game.first_player,
        )
        data = record.to_json()
        data["view"] = {
            "seat": seat.seat,
            **jaipur.views.view_to_json(jaipur.seat_view(match, seat.seat)),
        }
        return data


def _players(game: Game) -> list[dict[str, Any]]:
    return [{"seat": s.seat, "name": s.name} for s in game.seats]


def _record(game: Game, rows: list[MoveRow], match: Match | None) -> Record:
    return jaipur.build_record(
        seed=bytes.fromhex(game.seed),
        commitment=game.commitment,
        moves=_logged(rows),
        final=match,
        game_id=game.public_id,
        players=_players(game),
        created_at=iso(game.created_at),
        first_player=game.first_player,
    )


def verify_game(env: Env, public_id: str) -> Verification:
    """Check the stored log (chain, replay, positions); flag the game if it fails."""
    with env.db.write() as session:
        game = _game(session, public_id)
        rows = _rows(session, game)
        report = jaipur.verify(_record(game, rows, None))
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


def list_games(env: Env, limit: int = 100) -> list[GameSummary]:
    with env.db.read() as session:
        counts = dict(
            session.execute(select(MoveRow.game_id, func.count()).group_by(MoveRow.game_id)).all()
        )
        games = session.scalars(select(Game).order_by(Game.id.desc()).limit(limit))
        return [
            GameSummary(
                g.public_id,
                _names(g),
                g.status,
                counts.get(g.id, 0),
                as_utc(g.created_at),
                g.integrity_error,
            )
            for g in games
        ]


def seat_tokens(env: Env, public_id: str) -> tuple[str, str]:
    """The current links of both seats (for the operator's CLI in development)."""
    with env.db.read() as session:
        game = _game(session, public_id)
        return tuple(
            env.links.seat_token(public_id, s.seat, s.key_version)  # type: ignore[return-value]
            for s in game.seats
        )


def legal_moves(env: Env, token: str, client: Client | None = None) -> list[str]:
    """The seat's legal moves, canonical (none when it is not its turn)."""
    with env.db.write() as session:
        game, seat = _authenticate(env, session, token)
        rows = _rows(session, game)
        match = _state(env, game, rows)
        if client is not None:
            _access(
                session,
                env,
                game,
                seat.seat,
                "api-legal",
                client,
                seen_n=len(rows),
                key_version=seat.key_version,
            )
        if match.to_move != seat.seat:
            return []
        return [str(m) for m in match.legal_moves()]


def operator_record(env: Env, public_id: str) -> dict[str, Any]:
    """The full record with the seed, even while the game runs: for the operator's audits only."""
    with env.db.read() as session:
        game = _game(session, public_id)
        rows = _rows(session, game)
        match = _state(env, game, rows)
        return _record(game, rows, match if match.is_over else None).to_json()
