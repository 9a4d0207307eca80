"""Starting a game: a new game and its seats, and each player accepting it with random bytes
of their own (which deals it).

The pages of a game are ``game_pages.py``; its clock's settings ``game_clock.py``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from ...engine import names, rng
from ...engine.record import ENGINE, RULES
from ...i18n import known_language, known_timezone
from ...i18n import lazy_gettext as _l
from ...store import games as game_rows
from ...store import wakeup
from ...store.models import Game, Player, Seat
from ...store.players import is_bot_address
from ..core import limits
from ..core.access import Client, log_game_access
from ..core.env import Env
from ..core.errors import InvalidInput
from ..core.identity import (
    checked_email,
    checked_language,
    checked_name,
    checked_person_name,
    checked_timezone,
    follow_seat,
    new_public_id,
    normal_email,
    player_for,
)
from ..core.lookup import authenticate, state_of
from ..core.status import GameStatus
from ..mailing import queued_mails
from .game_clock import GameClock

#: The computer's seed contribution: a fixed, public value, so it cannot steer the deal.
COMPUTER_CONTRIBUTION = hashlib.sha256(b"pbem/computer/contribution").digest()


@dataclass(frozen=True, slots=True)
class PlayerIn:
    name: str
    email: str
    #: The seat's language and time zone; None takes the player's saved choice.
    language: str | None = None
    timezone: str | None = None
    #: Read from the database (``stored_player``), not typed: nothing in it is refused.
    stored: bool = False


@dataclass(frozen=True, slots=True)
class CreatedGame:
    public_id: str
    commitment: str
    tokens: tuple[str, str]


def _clean_player(player: PlayerIn, which: object, computer: bool = False) -> PlayerIn:
    """A player as given, each part checked; a language or zone left out (None) is the
    player's saved one. A typed name may not be the computer's but in its own seat (a
    stored one, already a name of the site, is kept as it is)."""
    typed_person = not (computer or player.stored)
    return PlayerIn(
        (checked_person_name if typed_person else checked_name)(player.name, which),
        checked_email(player.email, which),
        None if player.language is None else checked_language(player.language),
        None if player.timezone is None else checked_timezone(player.timezone),
    )


def stored_player(name: str, email: str, language: str, timezone: str) -> PlayerIn:
    """A player of a new game made from stored rows (a rematch, a challenge taken, the
    computer again): the name as today's rule keeps it (``names.sanitized``: a name stored
    before a rule changed loses only what the rule refuses), and a language and zone this
    server still knows. Nothing here was typed, so nothing is refused."""
    return PlayerIn(
        names.sanitized(name),
        email,
        known_language(language),
        known_timezone(timezone),
        stored=True,
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
    who: tuple[object, object] | None = None,
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
    that created the game; an event's round, which mails its own). ``who``: how a
    refusal names the two players, as the form that sent them does ("You", "Your
    opponent"); "First player" and "Second player" by default.
    """
    computers = bot_seat if bot is not None else None
    first, second = who or (_l("First player"), _l("Second player"))
    a = _clean_player(players[0], first, computers == 0)
    b = _clean_player(players[1], second, computers == 1)
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
                queued_mails.invitation(session, env, game, seat, tokens[seat], match)
        if any(is_bot_address(s.email) for s in game.seats):
            wakeup.bots_told(session)  # an invitation to a bot: its stream tells it
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
        log_game_access(
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
            queued_mails.dealt(session, env, game, s, match, held=against_computer)
        if match.to_move is not None and game.seats[match.to_move].bot is not None:
            wakeup.computer_to_move(session)  # the computer starts: at once
        if any(is_bot_address(s.email) for s in game.seats):
            wakeup.bots_told(session)  # a bot's stream tells it at once (docs/bots.md)
        return True
