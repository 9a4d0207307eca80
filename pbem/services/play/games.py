"""Creating games and showing them: the seat page, the public page, listings.

Every state is ``replay(seed, log)`` (invariant 1); a seat page is built from
that seat's view only (invariant 7).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ... import engine as jaipur
from ...clock import as_utc
from ...engine import names, rng
from ...engine.record import ENGINE, RULES
from ...i18n import Reader, known_language, known_timezone
from ...i18n import lazy_gettext as _l
from ...store import events as event_rows
from ...store import games as game_rows
from ...store import move_log, wakeup
from ...store.models import Game, MoveRow, Player, Seat
from ..core import limits
from ..core.access import Client, note_use, record_access
from ..core.env import Env
from ..core.errors import InvalidInput, Missing
from ..core.identity import (
    checked_email,
    checked_language,
    checked_name,
    checked_timezone,
    follow_seat,
    new_public_id,
    normal_email,
    player_for,
)
from ..core.integrity import Flag
from ..core.log import authenticate, game_row, state_of
from ..core.replayed import Entry, played, seat_names
from ..core.status import GameStatus
from ..mailing import game_mails
from .deadlines import TurnClock, turn_clock

#: The computer's seed contribution: a fixed, public value, so it cannot steer the deal.
COMPUTER_CONTRIBUTION = hashlib.sha256(b"pbem/computer/contribution").digest()


@dataclass(frozen=True, slots=True)
class PlayerIn:
    name: str
    email: str
    #: The seat's language and time zone; None takes the player's saved choice.
    language: str | None = None
    timezone: str | None = None


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
class CreatedGame:
    public_id: str
    commitment: str
    tokens: tuple[str, str]


@dataclass(frozen=True, slots=True)
class GameSummary:
    public_id: str
    names: tuple[str, str]
    status: str
    moves: int
    created_at: datetime
    integrity_error: str | None


# ------------------------------------------------------------------ helpers


def _clean_player(player: PlayerIn, which: object) -> PlayerIn:
    """A player as given, each part checked; a language or zone left out (None) is the
    player's saved one."""
    return PlayerIn(
        checked_name(player.name, which),
        checked_email(player.email, which),
        None if player.language is None else checked_language(player.language),
        None if player.timezone is None else checked_timezone(player.timezone),
    )


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


def turn_started(game: Game, rows: Sequence[MoveRow] | Sequence[Entry]) -> datetime:
    """When the current turn began: the last entry that was not a timeout, or the creation."""
    for row in reversed(rows):
        if row.move != "timeout":
            return as_utc(row.at)
    return as_utc(game.dealt_at or game.created_at)


@dataclass(frozen=True, slots=True)
class Limit:
    """The whole numbers ``low`` to ``high`` that one of a game's clock settings may be."""

    low: int
    high: int

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.low <= value <= self.high

    def nearest(self, value: int) -> int:
        """``value`` brought within the bounds (a game stored before they were set)."""
        return min(max(value, self.low), self.high)


#: The bounds of a game's clock: the one definition that ``GameClock.check`` holds every
#: game to, and that the home page's and the challenges' forms read (issue 31: a
#: hand-made form asked for a reminder every hour). Reminders come at most once a day.
CLOCK_LIMITS: dict[str, Limit] = {
    "days_per_move": Limit(1, 60),
    "reminder_after_hours": Limit(12, 24 * 30),
    "reminder_every_hours": Limit(24, 24 * 30),
    "vacation_days": Limit(0, 60),
}
TIMEOUT_ACTIONS = ("claim", "wait")


@dataclass(frozen=True, slots=True)
class GameClock:
    """A game's correspondence clock, chosen when it is created (bounds: ``CLOCK_LIMITS``)."""

    days_per_move: int | None = 3
    reminder_after_hours: int = 24
    reminder_every_hours: int = 48
    timeout_action: str = "claim"  # or "wait"
    vacation_days: int = 10

    def check(self) -> GameClock:
        limits = CLOCK_LIMITS
        days, after = limits["days_per_move"], limits["reminder_after_hours"]
        every, vacation = limits["reminder_every_hours"], limits["vacation_days"]
        if self.days_per_move is not None and self.days_per_move not in days:
            raise InvalidInput(
                _l(
                    "days per move: between %(low)s and %(high)s, or no limit",
                    low=days.low,
                    high=days.high,
                )
            )
        if self.reminder_after_hours not in after:
            raise InvalidInput(
                _l(
                    "the first reminder comes after %(low)s to %(high)s hours",
                    low=after.low,
                    high=after.high,
                )
            )
        if self.reminder_every_hours not in every:
            raise InvalidInput(
                _l(
                    "reminders repeat every %(low)s to %(high)s hours",
                    low=every.low,
                    high=every.high,
                )
            )
        if self.timeout_action not in TIMEOUT_ACTIONS:
            raise InvalidInput(
                _l("after a timeout: the waiting player may claim, or the game waits")
            )
        if self.vacation_days not in vacation:
            raise InvalidInput(
                _l("vacation days: %(low)s to %(high)s", low=vacation.low, high=vacation.high)
            )
        return self

    @classmethod
    def of(cls, game: Game) -> GameClock:
        """A stored game's clock, for its rematch: within today's bounds, even for a game
        made before them (a rematch is asked for with one click; nothing is typed)."""
        limits = CLOCK_LIMITS
        days = game.days_per_move
        return cls(
            days_per_move=None if days is None else limits["days_per_move"].nearest(days),
            reminder_after_hours=limits["reminder_after_hours"].nearest(game.reminder_after_hours),
            reminder_every_hours=limits["reminder_every_hours"].nearest(game.reminder_every_hours),
            timeout_action=game.timeout_action
            if game.timeout_action in TIMEOUT_ACTIONS
            else cls.timeout_action,
            vacation_days=limits["vacation_days"].nearest(game.vacation_days),
        )


def stored_player(name: str, email: str, language: str, timezone: str) -> PlayerIn:
    """A player of a new game made from stored rows (a rematch, a challenge taken, the
    computer again): the name as today's rule keeps it (``names.sanitized``: a name stored
    before a rule changed loses only what the rule refuses), and a language and zone this
    server still knows. Nothing here was typed, so nothing is refused."""
    return PlayerIn(
        names.sanitized(name), email, known_language(language), known_timezone(timezone)
    )


def create_game(
    env: Env,
    players: tuple[PlayerIn, PlayerIn],
    *,
    first_player: int | None = None,
    clock: GameClock | None = None,
    await_players: bool = False,
    rematch_of: int | None = None,
    client: Client | None = None,
    player_id: int | None = None,
    bot: str | None = None,
    invite: bool = True,
    bot_seat: int = 1,
) -> CreatedGame:
    """A new game: the seed drawn from ``secrets``, its commitment shown, both seats invited.

    With ``await_players`` (games started on the web) the server's seed is only
    committed to: the game is dealt when both players have accepted, each adding
    random bytes of their own (docs/record-format.md §1.3), so not even the server chooses the deal.

    A ``client`` (a game started on the web) is rate-limited (``_creation_limits``):
    per signed-in ``player_id`` (the player in seat 0), else per client, and so is
    every address it mails but that player's own: else the home page mails anyone,
    with a subject of the visitor's choosing.

    ``bot`` (a level of ``pbem.ai.LEVELS``) makes seat 1 the computer's
    (``services/play/computer.py``): it has accepted already with its fixed public
    contribution, has no player and is mailed nothing; ``bot_seat=0`` seats it in
    seat 0 instead (an event's board, whose first player sits in seat 0).
    ``invite=False`` queues no invitation (a player who accepts at once, on the page
    that created the game; an event's round, which mails its own).
    """
    a = _clean_player(players[0], _l("First player"))
    b = _clean_player(players[1], _l("Second player"))
    if normal_email(a.email) == normal_email(b.email):
        raise InvalidInput(
            _l(
                "The two players need two different email addresses: each player's "
                "private link is mailed to their own address."
            )
        )
    if first_player not in (None, 0, 1):
        raise InvalidInput(_l("the first player is seat 0 or seat 1"))
    rules = (clock or GameClock()).check()
    if bot_seat not in (0, 1):
        raise ValueError("the computer sits in seat 0 or seat 1")
    mailed = tuple(p.email for i, p in enumerate((a, b)) if invite and not (bot and i == bot_seat))
    counts = _creation_limits(env, mailed, client, player_id) if client is not None else ()
    seed = rng.new_seed()
    now = env.clock.now()
    with env.db.write() as session:
        game = Game(
            public_id=new_public_id(),
            created_at=now,
            rules=RULES,
            engine=ENGINE,
            commitment=rng.commitment(seed),
            seed="" if await_players else seed.hex(),
            server_seed=seed.hex() if await_players else None,
            dealt_at=None if await_players else now,
            first_player=first_player,
            status=(GameStatus.WAITING if await_players else GameStatus.IN_PROGRESS).value,
            rematch_of=rematch_of,
            days_per_move=rules.days_per_move,
            reminder_after_hours=rules.reminder_after_hours,
            reminder_every_hours=rules.reminder_every_hours,
            timeout_action=rules.timeout_action,
            vacation_days=rules.vacation_days,
        )
        game_rows.add(session, game)  # a second rematch of a game: RematchMade
        for i, p in enumerate((a, b)):
            if i == bot_seat and bot is not None:
                session.add(computer_seat(game.id, p, bot, now, bot_seat))
                continue
            owner = player_for(
                session, p.email, p.name, now, language=p.language, timezone=p.timezone
            )
            session.add(
                Seat(
                    game_id=game.id,
                    seat=i,
                    name=p.name,
                    email=p.email,
                    key_version=1,
                    mail_mode=owner.mail_mode,
                    receipts=owner.receipts,
                    language=known_language(p.language or owner.language),
                    timezone=known_timezone(p.timezone or owner.timezone),
                )
            )
        session.flush()
        session.refresh(game)
        tokens = (
            env.links.seat_token(game.public_id, 0, 1),
            env.links.seat_token(game.public_id, 1, 1),
        )
        match = None if await_players else state_of(env, game, [])
        for seat in (0, 1) if invite else ():
            if game.seats[seat].bot is None:
                game_mails.invitation(session, env, game, seat, tokens[seat], match)
        created = CreatedGame(game.public_id, game.commitment, tokens)
    limits.count(env, *counts)  # a game made: a refused or failed one is not counted
    return created


def computer_seat(game_id: int, p: PlayerIn, level: str, now: datetime, seat: int = 1) -> Seat:
    """The computer's seat: accepted at creation with its fixed public contribution
    (docs/computer.md), so the person's own bytes, given after the commitment, deal."""
    return Seat(
        game_id=game_id,
        seat=seat,
        name=p.name,
        email=p.email,
        key_version=1,
        language="en",
        timezone="UTC",
        contribution=COMPUTER_CONTRIBUTION.hex(),
        accepted_at=now,
        bot=level,
    )


def _creation_limits(
    env: Env, mailed: tuple[str, ...], client: Client, player_id: int | None
) -> tuple[limits.Count, ...]:
    """What a new game counts against, once made; refused (429) if over any of it.

    A signed-in player (seat 0) is counted as their account, not as their network,
    and their own address, proven by signing in, is not counted as an address mailed:
    however many games others start naming it, theirs are limited by their own doing.
    The addresses they invite are counted per account and address, so nobody else's
    invitations can hold theirs back. A starter who is not signed in is counted per
    address mailed (lower-cased, without ``+tag``) across every such starter: the mail
    carries names the starter chose, and an address is not to be flooded.
    """
    own = None
    if player_id is not None:
        with env.db.read() as session:
            player = session.get(Player, player_id)
            own = player.email if player is not None else None
    counts = [
        limits.check(
            env,
            "games_per_client",
            f"player:{player_id}" if own else limits.network(client.ip),
            _l("You have started many games lately; try again later.")
            if own
            else _l("Too many new games from here; try again later."),
        )
    ]
    for seat, email in enumerate(mailed):
        if own is not None and normal_email(email) == own:
            continue
        address = limits.mailbox(email)
        if own is not None:
            who, full = f"player:{player_id}\n{address}", _YOU_SENT_MANY
        else:
            who, full = address, (_OWN_ADDRESS_FULL if seat == 0 else _ADDRESS_FULL)
        counts.append(limits.check(env, "invitations_per_address", who, full))
    return tuple(counts)


_ADDRESS_FULL = _l("That address has been sent many invitations lately; try again later.")
_YOU_SENT_MANY = _l("You have sent that address many invitations lately; try again later.")
_OWN_ADDRESS_FULL = _l(
    "Your address has been sent many invitations lately, perhaps for games others started "
    "with it. Sign in with it, then start your game: a signed-in player's own games are "
    "not held back by what others send."
)


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


def contribution_from(entropy_hex: str | None, phrase: str | None) -> bytes:
    """A seat's random bytes: from the browser (hex), or a typed phrase hashed with SHA-256."""
    entropy_hex = (entropy_hex or "").strip().lower()
    if entropy_hex:
        try:
            raw = bytes.fromhex(entropy_hex)
        except ValueError:
            raw = b""
        if len(raw) >= rng.MIN_CONTRIBUTION_BYTES:
            return raw[: rng.MAX_CONTRIBUTION_BYTES]
    phrase = (phrase or "").strip()
    if len(phrase) < 4:
        raise InvalidInput(
            _l("Type a few words of your own (any words): they help shuffle the cards.")
        )
    return hashlib.sha256(phrase.encode()).digest()


def accept(
    env: Env,
    token: str,
    contribution: bytes,
    client: Client,
    *,
    language: str | None = None,
    timezone: str | None = None,
) -> bool:
    """Accept the game with this seat's random bytes (and its language); True when this deals it."""
    now = env.clock.now()
    with env.db.write() as session:
        game, seat = authenticate(env, session, token, lock=True)
        if game.status != GameStatus.WAITING or seat.contribution is not None:
            raise InvalidInput(_l("You have accepted this game already."))
        if len(contribution) < rng.MIN_CONTRIBUTION_BYTES:
            raise InvalidInput(_l("Your contribution needs 16 random bytes or more."))
        seat.contribution, seat.accepted_at = contribution.hex(), now
        if language:
            seat.language = checked_language(language)
        if timezone:
            seat.timezone = checked_timezone(timezone)
        if language or timezone:  # chosen through the seat's own link: the account follows
            follow_seat(session, seat)
        record_access(
            session,
            env,
            game,
            seat.seat,
            "accept",
            client,
            key_version=seat.key_version,
            detail=contribution.hex(),
        )
        other = game.seats[1 - seat.seat]
        if other.contribution is None:
            return False
        assert game.server_seed is not None
        contributions = [bytes.fromhex(s.contribution or "") for s in game.seats]
        seed = rng.mix_seed(bytes.fromhex(game.server_seed), contributions[0], contributions[1])
        game.seed, game.status, game.dealt_at = seed.hex(), GameStatus.IN_PROGRESS.value, now
        session.flush()
        match = state_of(env, game, [])
        # against the computer the person dealt it on their page, which shows it at once
        against_computer = any(s.bot is not None for s in game.seats)
        for s in (0, 1):
            game_mails.dealt(session, env, game, s, match, held=against_computer)
        if match.to_move is not None and game.seats[match.to_move].bot is not None:
            wakeup.computer_to_move(session)  # the computer starts: at once
        return True


def away_intervals(seat: Seat) -> list[tuple[datetime, datetime]]:
    return [(as_utc(v.starts_at), as_utc(v.ends_at)) for v in seat.vacations]


#: The shortest time away stored (the forms' least): less left of an allowance is none.
MIN_AWAY_DAYS = 0.01


def vacation_left(game: Game, seat: Seat) -> float:
    """Days of the allowance neither used nor planned: what a request could add beyond a
    current absence's end."""
    used = sum((as_utc(v.ends_at) - as_utc(v.starts_at)).total_seconds() for v in seat.vacations)
    return max(0.0, game.vacation_days - used / 86400)


def away_reach(game: Game, seat: Seat, now: datetime) -> timedelta:
    """The longest absence that may run from ``now``: the allowance less the time actually
    used by ``now`` (a current absence counts up to ``now``, not to its planned end)."""
    used = sum(
        (
            max(timedelta(0), min(as_utc(v.ends_at), now) - as_utc(v.starts_at))
            for v in seat.vacations
        ),
        timedelta(0),
    )
    return max(timedelta(0), timedelta(days=game.vacation_days) - used)


def current_clock(
    game: Game, rows: Sequence[MoveRow] | Sequence[Entry], match: jaipur.Match, now: datetime
) -> TurnClock | None:
    """The turn clock of the seat to move (None once the game is over)."""
    if match.to_move is None:
        return None
    return turn_clock(
        turn_started(game, rows), now, game.days_per_move, away_intervals(game.seats[match.to_move])
    )


def seat_page(
    env: Env, token: str, client: Client, *, action: str = "view"
) -> SeatPage | WaitingPage:
    """What the seat link shows: that seat's view only (invariant 7), and the log.

    One query and one access-log row, the most frequent request after a move, so it
    runs without a transaction around it (``Database.autocommit``).
    """
    with env.db.autocommit() as session:
        game, seat = authenticate(env, session, token, vacations=True)
        if not game.dealt:
            note_use(session, env, game, seat, action, client, seen_n=0)
            return WaitingPage(
                game_info(game, False),
                seat.seat,
                token,
                seat.contribution is not None,
                game.seats[1 - seat.seat].contribution is not None,
                Reader(seat.language, seat.timezone),
                None if game.rematch_of is not None else 0,
            )
        log = played(env, session, game)
        note_use(session, env, game, seat, action, client, seen_n=log.n)
        match = log.match
        now = env.clock.now()
        away = [v for v in seat.vacations if as_utc(v.ends_at) > now]
        info = game_info(game, match.is_over, log.n if log.broken else None)
        playing = not info.frozen  # a frozen game has no turn, no clock and no claim
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
        )


def log_length(env: Env, public_id: str) -> int:
    """How many moves a game's log holds, public as its move list: what a seat page that
    waits for the other player asks every few seconds (one query, nothing written)."""
    with env.db.read() as session:
        n = move_log.length(session, public_id)
    if n is None:
        raise Missing(_l("There is no game with that id."))
    return n


def public_page(env: Env, public_id: str) -> PublicPage:
    with env.db.read() as session:
        game = game_row(session, public_id)
        if not game.dealt:
            return PublicPage(game_info(game, False), None, (), as_utc(game.created_at))
        log = played(env, session, game)
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
        log = played(env, session, game)
        if client is not None:
            note_use(session, env, game, seat, "api-legal", client, seen_n=log.n)
        if log.match.to_move != seat.seat or game.integrity_error is not None:
            return []
        return [str(m) for m in log.match.legal_moves()]
