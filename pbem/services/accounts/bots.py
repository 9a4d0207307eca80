"""Bot accounts (docs/bots.md): a person registers a bot, which plays through the JSON API
with a token of its own and is told of its turns by a stream of events instead of mail.

A bot is a player row with ``bot_owner_id`` set and an address in the reserved
``bots.invalid`` domain (``store.players.bot_address``): the outbox never queues mail
there, every page shows its name with a badge (``i18n.words.BotName``), and its games are
not rated (``play.ratings.rate``). Its token is shown once; only its SHA-256 is kept.
A bot's token opens only the bot's own seats: the API asks for a game, and the seat is
the one of that game with the bot's address, or none.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from ...engine import names
from ...i18n import lazy_gettext as _l
from ...store import move_log, wakeup
from ...store import players as player_rows
from ...store.models import Game, Player
from ..core import limits
from ..core.env import Env
from ..core.errors import Frozen, Missing, NotAllowed
from ..core.identity import checked_person_name, new_public_id, seats_of
from ..core.lookup import log_rows, state_of
from ..core.status import GameStatus

#: What every bot token starts with: told apart from a seat token at a glance.
TOKEN_PREFIX = "pbot_"
#: How many bots one person may hold at once.
MAX_BOTS = 5
#: The longest a long poll waits (seconds), and a stream stays open before the bot
#: reconnects: a web worker is never held longer.
MAX_WAIT = 30
STREAM_SECONDS = 300
#: How often a waiting request looks again even when nothing woke it: a wake-up missed
#: (a timeout played by the scheduler on PostgreSQL) is seen within this many seconds.
RECHECK = 5.0

BAD_TOKEN = _l("Send the bot's token as 'Authorization: Bearer <token>'.")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def is_bot_token(token: str) -> bool:
    return token.startswith(TOKEN_PREFIX)


@dataclass(frozen=True, slots=True)
class Bot:
    """A bot account as its owner and its token see it."""

    id: int
    public_id: str
    name: str
    address: str
    has_token: bool


def _bot(p: Player) -> Bot:
    return Bot(p.id, p.public_id, p.display_name, p.email, p.bot_token_hash is not None)


@dataclass(frozen=True, slots=True)
class Registered:
    bot: Bot
    token: str  #: shown once


def register(env: Env, owner_id: int, name: str, client: Any = None) -> Registered:
    """A new bot of the signed-in person ``owner_id``, with its first token. Counted
    against the owner's challenges limit (``challenges_per_client``): what a person may
    do to reach others, their bots may not multiply."""
    clean = checked_person_name(name, _l("Bot's name"))
    count = (
        limits.check(env, "challenges_per_client", f"player:{owner_id}", _TOO_MANY)
        if client is not None
        else None
    )
    token = new_token()
    with env.db.write() as session:
        owner = session.get(Player, owner_id)
        if owner is None or owner.erased_at is not None or owner.bot_owner_id is not None:
            raise NotAllowed()  # a bot cannot register bots
        if len(player_rows.bots_of(session, owner_id)) >= MAX_BOTS:
            raise NotAllowed(
                _l("You have %(n)s bots already: the most one person may hold.", n=MAX_BOTS)
            )
        public_id = new_public_id()
        bot = Player(
            public_id=public_id,
            email=player_rows.bot_address(public_id),
            display_name=names.sanitized(clean),
            created_at=env.clock.now(),
            verified_at=None,
            session_version=1,
            mail_mode="invitations",
            language=owner.language,
            timezone="UTC",
            rated_games=0,
            bot_owner_id=owner_id,
            bot_token_hash=_hash(token),
        )
        session.add(bot)
        session.flush()
        made = Registered(_bot(bot), token)
    if count is not None:
        limits.count(env, count)
    return made


_TOO_MANY = _l("You have registered many bots lately; try again later.")


def _owned(session: Session, owner_id: int, bot_id: str) -> Player:
    bot = player_rows.by_public_id(session, bot_id)
    if bot is None or bot.bot_owner_id != owner_id or bot.erased_at is not None:
        raise Missing(_l("There is no such bot."))
    return bot


def rotate(env: Env, owner_id: int, bot_id: str) -> str:
    """A new token for the owner's bot; the old one stops working at once."""
    token = new_token()
    with env.db.write() as session:
        _owned(session, owner_id, bot_id).bot_token_hash = _hash(token)
    return token


def revoke(env: Env, owner_id: int, bot_id: str) -> None:
    """The bot's token stops working; a new one can be made later (``rotate``)."""
    with env.db.write() as session:
        _owned(session, owner_id, bot_id).bot_token_hash = None


def bots_of(env: Env, owner_id: int) -> list[Bot]:
    with env.db.read() as session:
        return [_bot(p) for p in player_rows.bots_of(session, owner_id)]


def authenticate(env: Env, token: str) -> Bot:
    """The bot whose token this is (NotAllowed for a forged, revoked or rotated one)."""
    if not is_bot_token(token):
        raise NotAllowed(BAD_TOKEN)
    with env.db.read() as session:
        bot = player_rows.by_bot_token_hash(session, _hash(token))
        if bot is None:
            raise NotAllowed(_l("This bot token is not valid (revoked or replaced?)."))
        return _bot(bot)


def seat_token(env: Env, bot: Bot, game_id: str) -> str:
    """The seat token of the bot's seat in this game: the API's calls then go through the
    seat's own use cases. Another game's seat, or a game the bot has no seat in: 403."""
    with env.db.read() as session:
        for seat in seats_of(session, _player(session, bot)):
            if seat.game.public_id == game_id:
                return env.links.seat_token(game_id, seat.seat, seat.key_version)
    raise NotAllowed(_l("The bot has no seat in that game."))


def _player(session: Session, bot: Bot) -> Player:
    player = session.get(Player, bot.id)
    if player is None:
        raise NotAllowed(BAD_TOKEN)
    return player


@dataclass(frozen=True, slots=True)
class Batch:
    """What the bot is told: the events and the cursor to ask after next."""

    events: list[dict[str, Any]]
    last: int


def pending(env: Env, bot: Bot, after: int | None) -> Batch:
    """The bot's events: each move in its games after the move-log id ``after`` (with its
    id; its own included; ``over`` after a game's last), then what waits for it now:
    ``invited`` (a game to accept) and ``turn`` (its move, with the ``n`` to send)."""
    events: list[dict[str, Any]] = []
    last = after or 0
    ended: set[int] = set()  # games whose moves were told now: told "over" if they ended
    with env.db.read() as session:
        seats = seats_of(session, _player(session, bot))
        games = {s.game_id: s for s in seats}
        if after is not None and games:
            for row in move_log.after_id(session, list(games), after, 200):
                seat = games[row.game_id]
                events.append(
                    {
                        "type": "move",
                        "id": row.id,
                        "game": seat.game.public_id,
                        "seat": row.seat,
                        "n": row.n,
                        "move": row.move,
                        "mine": row.seat == seat.seat,
                    }
                )
                last = max(last, row.id)
                ended.add(row.game_id)
        elif games:
            last = max(last, move_log.newest_id(session, list(games)))
        for seat in seats:
            game: Game = seat.game
            if game.status == GameStatus.WAITING:
                if seat.contribution is None:
                    events.append({"type": "invited", "game": game.public_id, "seat": seat.seat})
                continue
            if game.status == GameStatus.FINISHED:
                if game.id in ended and log_rows(session, game)[-1].id <= last:
                    events.append({"type": "over", "game": game.public_id, "seat": seat.seat})
                continue
            rows = log_rows(session, game)
            try:
                match = state_of(env, game, rows)
            except Frozen:
                continue
            if match.to_move == seat.seat and match.outcome() is None:
                events.append(
                    {"type": "turn", "game": game.public_id, "seat": seat.seat, "n": len(rows) + 1}
                )
    return Batch(events, last)


def _key(event: dict[str, Any]) -> tuple[Any, ...]:
    return (event["type"], event["game"], event.get("n"), event.get("id"))


def wait_for(
    env: Env,
    bot: Bot,
    after: int | None,
    seconds: float,
    told: set[tuple[Any, ...]] | None = None,
) -> Batch:
    """``pending``, waiting up to ``seconds`` for something to tell (the computer's wake-up
    mechanism, ``store/wakeup.py``: LISTEN on PostgreSQL, a short poll on SQLite). ``told``
    (a stream's): what this connection said already, left out and added to."""

    def fresh(cursor: int | None) -> Batch:
        batch = pending(env, bot, cursor)
        if told is None:
            return batch
        new = [e for e in batch.events if _key(e) not in told]
        told.update(_key(e) for e in new)
        return Batch(new, batch.last)

    batch = fresh(after)
    if batch.events or seconds <= 0:
        return batch
    end = time.monotonic() + seconds
    cursor = batch.last if after is None else after  # from now on, moves are told too
    with wakeup.listening(env.db, bots=True) as listener:
        batch = fresh(cursor)  # what came while the listener opened
        while not batch.events:
            left = end - time.monotonic()
            if left <= 0:
                break
            listener.wait(min(left, RECHECK))
            batch = fresh(cursor)
    return batch
