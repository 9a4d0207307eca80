"""Reading games for pages: the seat page, the waiting page, the public page, listings.

Every state is ``replay(seed, log)`` (invariant 1); a seat page is built from
that seat's view only (invariant 7).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ... import engine as jaipur
from ...clock import as_utc
from ...i18n import Reader
from ...i18n import lazy_gettext as _l
from ...store import events as event_rows
from ...store import games as game_rows
from ...store import move_log
from ...store.models import Game
from ..core.access import Client, log_seat_use
from ..core.env import Env
from ..core.errors import Missing
from ..core.integrity import Flag
from ..core.lookup import authenticate, game_row
from ..core.replayed import Entry, replay_log, seat_names
from ..mailing.bounces import bouncing_seats
from .deadlines import TurnClock
from .turns import MIN_AWAY_DAYS, away_reach, current_clock, turn_started, vacation_left


@dataclass(frozen=True, slots=True)
class GameInfo:
    public_id: str
    created_at: datetime
    commitment: str
    names: tuple[str, str]
    status: str
    integrity_error: str | None
    seed: str | None  # only once the game is over
    days_per_move: int | None
    timeout_action: str
    #: The last move shown when the log stops verifying after it (the rest is not shown).
    verified: int | None = None
    #: Dealt from player entropy (docs/record-format.md): the commitment is sha256 of the
    #: server's seed, not of the game's seed, which is HMAC(server seed, both contributions).
    mixed: bool = False
    server_seed: str | None = None  # only once the game is over
    contributions: tuple[str, str] | None = None  # only once the game is over
    #: A game against the computer: its seat and level (such a game is not rated).
    computer: tuple[int, str] | None = None

    @property
    def flag(self) -> Flag | None:
        """What a page of a game whose log does not verify says; None for a sound one."""
        if self.integrity_error is None:
            return None
        return Flag(self.integrity_error, self.verified)

    @property
    def frozen(self) -> bool:
        """Nothing is played in a game whose log does not verify."""
        return self.integrity_error is not None


@dataclass(frozen=True, slots=True)
class SeatPage:
    game: GameInfo
    seat: int
    token: str
    view: jaipur.SeatView
    entries: tuple[Entry, ...]
    next_n: int
    since: datetime
    legal: tuple[jaipur.Move, ...]  #: the seat's legal moves (none when it is not its turn)
    clock: TurnClock | None  # the current turn's deadline, whoever is to move
    away_until: datetime | None
    vacation_left: float  #: days of the allowance neither used nor planned (``vacation_left``)
    away_reach: timedelta  #: the longest absence that may run from now (``away_reach``)
    mail_mode: str
    receipts: str  #: which of its own moves the seat gets a receipt of (``settings.RECEIPTS``)
    can_claim: bool
    reader: Reader  #: the seat's language and time zone
    #: This seat's time for the move ran out (a timeout is logged) and it has not moved since.
    late: bool = False
    #: The computer is to move: the scheduler plays its move within seconds.
    thinking: bool = False
    #: For each seat, whether mail to its address bounces (``mailing/bounces.py``).
    bouncing: tuple[bool, ...] = (False, False)
    #: Once the game is over, the event it was played in: (its public id, its name, the
    #: round), else None; an event's game has no rematch. Looked up only then: a running
    #: game's page stays one query.
    event: tuple[str, str, int] | None = None

    @property
    def away_more(self) -> bool:
        """Whether a request could still make the time away longer."""
        return self.vacation_left >= MIN_AWAY_DAYS

    @property
    def away_max_days(self) -> float:
        """The most days a request may ask for from now (the form's ``max``), rounded down."""
        return math.floor(self.away_reach / timedelta(days=1) * 100) / 100

    @property
    def away_min_days(self) -> float:
        return MIN_AWAY_DAYS

    @property
    def legal_count(self) -> int:
        return len(self.legal)


@dataclass(frozen=True, slots=True)
class PublicPage:
    game: GameInfo
    view: jaipur.PublicView | None  # None while the game waits for its players
    entries: tuple[Entry, ...]
    since: datetime
    #: The event it is played in: (event's public id, its name, the round), else None.
    event: tuple[str, str, int] | None = None


@dataclass(frozen=True, slots=True)
class WaitingPage:
    """A seat's page before the deal: accept the game, adding your own randomness."""

    game: GameInfo
    seat: int
    token: str
    accepted: bool
    opponent_accepted: bool
    reader: Reader  #: the seat's language and time zone
    #: The seat that started the game (seat 0, who filled in the home page or posted the
    #: challenge); None for a rematch, which either player may have asked for.
    inviter: int | None = 0
    #: For each seat, whether mail to its address bounces (``mailing/bounces.py``).
    bouncing: tuple[bool, ...] = (False, False)


@dataclass(frozen=True, slots=True)
class GameSummary:
    public_id: str
    names: tuple[str, str]
    status: str
    moves: int
    created_at: datetime
    integrity_error: str | None


def game_info(game: Game, over: bool, verified: int | None = None) -> GameInfo:
    """What pages show of a game: ``over`` publishes the seed; ``verified``: as in ``GameInfo``."""
    return GameInfo(
        game.public_id,
        as_utc(game.created_at),
        game.commitment,
        seat_names(game),
        game.status,
        game.integrity_error,
        game.seed if over else None,
        game.days_per_move,
        game.timeout_action,
        verified=verified,
        mixed=game.server_seed is not None,
        server_seed=game.server_seed if over else None,
        contributions=(game.seats[0].contribution or "", game.seats[1].contribution or "")
        if over and game.server_seed is not None
        else None,
        computer=computer_of(game),
    )


def computer_of(game: Game) -> tuple[int, str] | None:
    """The computer's seat and level, or None for a game between two people."""
    return next(((s.seat, s.bot) for s in game.seats if s.bot is not None), None)


def seat_page(
    env: Env, token: str, client: Client, *, action: str = "view"
) -> SeatPage | WaitingPage:
    """What the seat link shows: that seat's view only (invariant 7), and the log.

    One query and one access-log row, the most frequent request after a move, so it
    runs without a transaction around it (``Database.autocommit``).
    """
    with env.db.autocommit() as session:
        game, seat = authenticate(env, session, token, vacations=True)
        bouncing = bouncing_seats(game.seats)
        if not game.dealt:
            log_seat_use(session, env, game, seat, action, client, seen_n=0)
            return WaitingPage(
                game_info(game, False),
                seat.seat,
                token,
                seat.contribution is not None,
                game.seats[1 - seat.seat].contribution is not None,
                Reader(seat.language, seat.timezone),
                None if game.rematch_of is not None else 0,
                bouncing,
            )
        log = replay_log(env, session, game)
        log_seat_use(session, env, game, seat, action, client, seen_n=log.n)
        match = log.match
        now = env.clock.now()
        away = [v for v in seat.vacations if as_utc(v.ends_at) > now]
        info = game_info(game, match.is_over, log.n if log.broken else None)
        playing = not info.frozen  # a frozen game has no turn, no clock and no claim
        found = event_rows.of_games(session, [game.id]).get(game.id) if match.is_over else None
        return SeatPage(
            game=info,
            seat=seat.seat,
            token=token,
            view=jaipur.seat_view(match, seat.seat),
            entries=log.entries,
            next_n=log.n + 1,
            since=turn_started(game, log.entries),
            legal=tuple(match.legal_moves()) if playing and match.to_move == seat.seat else (),
            clock=current_clock(game, log.entries, match, now) if playing else None,
            away_until=as_utc(away[-1].ends_at) if away else None,
            vacation_left=vacation_left(game, seat),
            away_reach=away_reach(game, seat, now),
            mail_mode=seat.mail_mode,
            receipts=seat.receipts,
            can_claim=playing and match.overdue == 1 - seat.seat and game.timeout_action == "claim",
            reader=Reader(seat.language, seat.timezone),
            late=playing and match.overdue == seat.seat,
            thinking=playing and info.computer is not None and match.to_move == info.computer[0],
            bouncing=bouncing,
            event=(found[0].public_id, found[0].name, found[1].round) if found else None,
        )


def log_length(env: Env, public_id: str) -> tuple[int, bool]:
    """How many moves a game's log holds, and whether its cards are dealt, public as its
    move list and its public page: what a seat page that waits for the other player (to
    move, or to accept) asks every few seconds (one query, nothing written)."""
    with env.db.read() as session:
        found = move_log.length(session, public_id)
    if found is None:
        raise Missing(_l("There is no game with that id."))
    return found


def public_page(env: Env, public_id: str) -> PublicPage:
    with env.db.read() as session:
        game = game_row(session, public_id)
        if not game.dealt:
            return PublicPage(game_info(game, False), None, (), as_utc(game.created_at))
        log = replay_log(env, session, game)
        found = event_rows.of_games(session, [game.id]).get(game.id)
        return PublicPage(
            game_info(game, log.match.is_over, log.n if log.broken else None),
            jaipur.public_view(log.match),
            tuple(replace(e, message=None) for e in log.entries),  # notes: the players' own
            turn_started(game, log.entries),
            (found[0].public_id, found[0].name, found[1].round) if found else None,
        )


def list_games(env: Env, limit: int = 100) -> list[GameSummary]:
    with env.db.read() as session:
        counts = game_rows.move_counts(session)
        games = game_rows.newest(session, limit)
        return [
            GameSummary(
                g.public_id,
                seat_names(g),
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
        game = game_row(session, public_id)
        return tuple(
            env.links.seat_token(public_id, s.seat, s.key_version)  # type: ignore[return-value]
            for s in game.seats
        )


def legal_moves(env: Env, token: str, client: Client | None = None) -> list[str]:
    """The seat's legal moves, canonical (none when it is not its turn)."""
    with env.db.write() as session:
        game, seat = authenticate(env, session, token)
        log = replay_log(env, session, game)
        if client is not None:
            log_seat_use(session, env, game, seat, "api-legal", client, seen_n=log.n)
        if log.match.to_move != seat.seat or game.integrity_error is not None:
            return []
        return [str(m) for m in log.match.legal_moves()]
