"""Playing the computer: a game whose seat 1 is played by ``pbem.ai`` (docs/computer.md).

The computer's seat has no player, no link and no mail (its address is in the reserved
``.invalid`` domain, which the outbox never queues). Its moves are made by the
scheduler (``computer_moves``), never in a web request, through the same use case as a
person's move (``moves.play_computer``, source ``bot``), from that seat's view only:
``pbem.ai.play`` is given the observer's view and the round's public moves.

Fairness: the deal is the usual commit-reveal (docs/record-format.md §1.3): the server
commits to its seed, the person adds their own bytes after seeing the commitment, and
the computer's contribution is a fixed public value (``new_games.COMPUTER_CONTRIBUTION``).
The computer's randomness for move ``n`` is HMAC-SHA256(game seed, "pbem/computer:n"),
so every move it made can be reproduced from the published seed once the game is over.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from datetime import timedelta

from ... import ai
from ...engine import Claim, Resign, Timeout, parse_move
from ...engine.moves import Move
from ...i18n import lazy_gettext as _l
from ...store import games as game_rows
from ...store import players as player_rows
from ...store import seats as seat_rows
from ...store.models import Game, Player
from ..core.access import Client
from ..core.env import Env
from ..core.errors import InvalidInput, Missing
from ..core.identity import normal_email
from ..core.lookup import authenticate, log_rows, state_of
from ..core.replayed import Entry, replay_log
from ..core.status import GameStatus
from . import game_clock, game_pages, moves, new_games, seat_settings

logger = logging.getLogger(__name__)

LEVELS = tuple(ai.LEVELS)  # easy, normal, strong
ADDRESS = "computer@pbem.invalid"  # never mailed: the outbox leaves out .invalid
#: No deadline against the computer: the game waits; a gentle reminder after 7 days
#: without a move, then every 14 (the correspondence clock's reminders).
CLOCK = game_clock.GameClock(
    days_per_move=None,
    reminder_after_hours=7 * 24,
    reminder_every_hours=14 * 24,
    timeout_action="wait",
    vacation_days=0,
)
#: One run of the quick job plays at most this many moves and starts none after
#: ``BUDGET`` seconds of work, so a backlog never holds the scheduler up.
MOVES_PER_RUN = 20
BUDGET = 5.0
#: The quick job looks only at games dealt or moved in this long; the sweep at all.
RECENT = timedelta(minutes=10)


def name(level: str) -> str:
    """The computer's name in the game and its record: "Computer (normal)" (not translated:
    the record is the same for every reader; ``pbem reproduce`` checks it)."""
    return ai.player_name(level)


def checked_level(level: str | None) -> str:
    level = (level or "normal").strip().lower()
    if level not in LEVELS:
        raise InvalidInput(_l("Choose the computer's level: easy, normal or strong."))
    return level


def start(
    env: Env,
    person: new_games.PlayerIn,
    level: str | None,
    *,
    client: Client | None = None,
    player_id: int | None = None,
    contribution: bytes | None = None,
    rematch_of: int | None = None,
) -> new_games.CreatedGame:
    """A new game against the computer at ``level``, the person in seat 0.

    Without ``contribution`` the person is mailed an invitation and the game is dealt
    when they accept from their link (home page: the address is checked so). With one
    (signed in, or a rematch) they accept at once and the game is dealt now. A signed-in
    ``player_id`` is limited as that player (``new_games.create_game``).
    """
    level = checked_level(level)
    created = new_games.create_game(
        env,
        (person, new_games.PlayerIn(name(level), ADDRESS)),
        clock=CLOCK,
        await_players=True,
        rematch_of=rematch_of,
        client=client,
        player_id=player_id,
        bot=level,
        invite=contribution is None,
        who=(_l("You"), _l("Second player")),  # the computer's part is never refused
    )
    if contribution is not None:
        new_games.accept(env, created.tokens[0], contribution, client or Client())
    return created


def own_bytes(contribution: bytes | None) -> bytes:
    """The person's contribution: their browser's bytes, else drawn here (no JavaScript)."""
    return contribution if contribution is not None else secrets.token_bytes(32)


def start_signed_in(
    env: Env, player_id: int, level: str | None, contribution: bytes | None, client: Client
) -> str:
    """One click in "my games" deals a game against the computer; returns the seat's token.

    The player is on the web, where the computer's reply shows within seconds: a mail
    for each of its moves would be noise, so the seat takes the daily digest (one
    click on the seat page brings back a mail on every turn)."""
    with env.db.read() as session:
        me = session.get(Player, player_id)
        if me is None:
            raise Missing(_l("There is no such player."))
        person = new_games.stored_player(me.display_name, me.email, me.language, me.timezone)
    token = start(
        env, person, level, client=client, player_id=player_id, contribution=own_bytes(contribution)
    ).tokens[0]
    seat_settings.set_mail_mode(env, token, "digest", client)
    return token


def again(env: Env, token: str, contribution: bytes | None, client: Client) -> str:
    """ "Play the computer again" at a game's end: the same level, dealt at once; once per
    game (a second click opens the same new game). Returns the new game's seat token."""
    with env.db.read() as session:
        game, seat = authenticate(env, session, token)
        level = game_pages.computer_of(game)
        if level is None:
            raise InvalidInput(_l("This game is not against the computer."))
        if not state_of(env, game, log_rows(session, game)).is_over:
            raise InvalidInput(_l("A rematch can be asked for once the game is over."))
        existing = game_rows.rematch_of(session, game.id)
        if existing is not None:
            return env.links.seat_token(existing.public_id, 0, existing.seats[0].key_version)
        person = new_games.stored_player(seat.name, seat.email, seat.language, seat.timezone)
        old_id = game.id
        owner = player_rows.by_email(session, normal_email(seat.email))  # the seat's own limits
    try:
        created = start(
            env,
            person,
            level[1],
            client=client,
            player_id=owner.id if owner is not None else None,
            contribution=own_bytes(contribution),
            rematch_of=old_id,
        )
    except game_rows.RematchMade:  # a second click at the same moment: the first stands
        with env.db.read() as session:
            made = game_rows.rematch_of(session, old_id)
            assert made is not None
            return env.links.seat_token(made.public_id, 0, made.seats[0].key_version)
    return created.tokens[0]


def round_moves(entries: tuple[Entry, ...]) -> list[Move]:
    """The public moves of the round in progress: those after the last one that ended a round."""
    start_at = max((i + 1 for i, e in enumerate(entries) if e.ended is not None), default=0)
    found = [parse_move(e.move) for e in entries[start_at:]]
    return [m for m in found if not isinstance(m, Timeout | Claim | Resign)]


@dataclass
class Report:
    moves: int = 0
    games: int = 0
    failed: int = 0  # games where its move failed (logged with the error)
    seconds: float = 0.0

    def __bool__(self) -> bool:  # the scheduler logs a run that did something
        return self.moves > 0 or self.failed > 0


def computer_moves(
    env: Env,
    *,
    recent: timedelta | None = RECENT,
    limit: int = MOVES_PER_RUN,
    budget: float = BUDGET,
) -> Report:
    """Play every move the computer owes, in games dealt or moved in ``recent`` (all with
    None: the sweep). At most ``limit`` moves; none started after ``budget`` seconds.

    The search runs outside any transaction; the move is then logged like any other
    (one transaction, ``n = last + 1``), so a run that overlaps another logs it once.
    """
    report = Report()
    started = time.perf_counter()  # work done, not the game's time (that is ``env.clock``)
    since = env.clock.now() - recent if recent is not None else None
    with env.db.read() as session:
        due = seat_rows.computer_seats(session, since)
    for game_id, seat, level in due:
        counted = False
        while report.moves < limit and time.perf_counter() - started < budget:
            try:
                if not _play_one(env, game_id, seat, level):
                    break
            except Exception:  # one game that fails must not keep the others waiting
                logger.exception("the computer could not move in game %s", game_id)
                report.failed += 1
                break
            report.moves += 1
            if not counted:
                report.games, counted = report.games + 1, True
    report.seconds = time.perf_counter() - started
    return report


def move_now(env: Env, game_id: int) -> bool:
    """The computer's move in this game at once, if it is its turn; False if it is not.

    An event's round makes the computer's first move before the round's one mail is
    written (``events.rounds``), so that mail shows it and no "your turn" follows."""
    with env.db.read() as session:
        game = session.get(Game, game_id)
        bot = next((s for s in game.seats if s.bot is not None), None) if game else None
        if bot is None:
            return False
        seat, level = bot.seat, bot.bot
    assert level is not None
    return _play_one(env, game_id, seat, level)


def _play_one(env: Env, game_id: int, seat: int, level: str) -> bool:
    """The computer's move in this game if it is its turn; False if it is not."""
    with env.db.read() as session:
        game = session.get(Game, game_id)
        if game is None or game.status != GameStatus.IN_PROGRESS or game.integrity_error:
            return False
        log = replay_log(env, session, game)
        if log.broken or log.match.to_move != seat:
            return False
        n, seed = log.n + 1, bytes.fromhex(game.seed)
    move = ai.play(log.match, seat, round_moves(log.entries), level, ai.move_seed(seed, n))
    return moves.play_computer(env, game_id, n, move, ai.VERSION) is not None
