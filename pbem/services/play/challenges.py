"""Finding an opponent: open challenges anyone signed in may accept, and rematches.

Accepting is one conditional UPDATE (``status = 'open'``), so two players accepting
the same challenge at once create one game. A rematch swaps the seat that starts,
and the other player accepts it by link like any new game.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ... import redact
from ...i18n import lazy_gettext as _l
from ...i18n.words import BotName
from ...store import challenges as challenge_rows
from ...store import games as game_rows
from ...store.models import Challenge, Player
from ...store.players import is_bot_address
from ..core import limits
from ..core.access import Client
from ..core.env import Env
from ..core.errors import InvalidInput, Missing, NotAllowed, WrongState
from ..core.identity import new_public_id
from ..core.lookup import authenticate, game_row, log_rows, state_of
from . import game_clock, game_pages, new_games

STARTERS = ("random", "challenger", "opponent")


@dataclass(frozen=True, slots=True)
class OpenChallenge:
    public_id: str
    by: str
    by_public_id: str
    days_per_move: int | None
    starter: str
    note: str | None
    created_at: datetime
    mine: bool


TOO_MANY = _l("You have posted or taken many challenges lately; try again later.")


def _limit(env: Env, player_id: int, client: Client | None) -> None:
    """Posting and taking challenges mails people: limited per player, who is signed in
    (so others behind the same address cannot use up their limit)."""
    if client is None:  # the CLI and the tests' own calls
        return
    limits.enforce(env, "challenges_per_client", f"player:{player_id}", TOO_MANY)


def post(
    env: Env,
    player_id: int,
    *,
    days_per_move: int | None,
    starter: str,
    note: str | None,
    client: Client | None = None,
) -> str:
    if starter not in STARTERS:
        raise InvalidInput(_l("Who starts: random, you, or your opponent."))
    game_clock.GameClock(days_per_move=days_per_move).check()
    _limit(env, player_id, client)
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise NotAllowed()
        public_id = new_public_id()
        session.add(
            Challenge(
                public_id=public_id,
                player_id=player.id,
                days_per_move=days_per_move,
                starter=starter,
                note=" ".join(redact.scrubbed(note or "").split())[:300] or None,
                created_at=env.clock.now(),
                status="open",
            )
        )
        return public_id


def open_list(env: Env, viewer_id: int | None) -> list[OpenChallenge]:
    with env.db.read() as session:
        rows = challenge_rows.open_ones(session, 100)
        return [
            OpenChallenge(
                c.public_id,
                # a bot's name with its badge (docs/bots.md)
                BotName(c.player.display_name)
                if is_bot_address(c.player.email)
                else c.player.display_name,
                c.player.public_id,
                c.days_per_move,
                c.starter,
                c.note,
                c.created_at,
                c.player_id == viewer_id,
            )
            for c in rows
        ]


def accept(
    env: Env,
    challenge_id: str,
    player_id: int,
    contribution: bytes | None,
    *,
    client: Client | None = None,
) -> str:
    """Take an open challenge: creates the game (once) and mails both players their links."""
    _limit(env, player_id, client)
    with env.db.write() as session:
        challenge = challenge_rows.by_public_id(session, challenge_id)
        if challenge is None:
            raise Missing(_l("There is no such challenge."))
        if challenge.player_id == player_id:
            raise InvalidInput(_l("That is your own challenge."))
        if not challenge_rows.take(session, challenge.id, player_id):
            raise WrongState(_l("Someone else accepted this challenge first."))
        by = session.get(Player, challenge.player_id)
        me = session.get(Player, player_id)
        assert by is not None and me is not None
        first = {"random": None, "challenger": 0, "opponent": 1}[challenge.starter]
        days = challenge.days_per_move
    created = new_games.create_game(
        env,
        (
            new_games.stored_player(by.display_name, by.email, by.language, by.timezone),
            new_games.stored_player(me.display_name, me.email, me.language, me.timezone),
        ),
        first_player=first,
        clock=game_clock.GameClock(days_per_move=days),
        await_players=True,
    )
    with env.db.write() as session:
        game = game_row(session, created.public_id)
        challenge_rows.set_game(session, challenge_id, game.id)
    if contribution is not None:  # the accepting player's browser adds its bytes at once
        new_games.accept(env, created.tokens[1], contribution, Client())
    return created.public_id


def withdraw(env: Env, challenge_id: str, player_id: int) -> None:
    with env.db.write() as session:
        if not challenge_rows.withdraw(session, challenge_id, player_id):
            raise Missing(_l("There is no open challenge of yours with that id."))


def rematch(env: Env, token: str, contribution: bytes | None, client: Client) -> str:
    """A new game between the same players, the other seat starting; made once per game."""
    with env.db.read() as session:
        game, seat = authenticate(env, session, token)
        match = state_of(env, game, log_rows(session, game))
        if not match.is_over:
            raise InvalidInput(_l("A rematch can be asked for once the game is over."))
        if game_pages.computer_of(game) is not None:  # its own button: "Play the computer again"
            raise InvalidInput(_l("Play the computer again from the end of the game."))
        existing = game_rows.rematch_of(session, game.id)
        if existing is not None:
            return existing.public_id
        first_seat, second_seat = game.seats
        players = (
            new_games.stored_player(
                first_seat.name, first_seat.email, first_seat.language, first_seat.timezone
            ),
            new_games.stored_player(
                second_seat.name, second_seat.email, second_seat.language, second_seat.timezone
            ),
        )
        first = 1 - match.first_player
        old_id, clock = game.id, game_clock.GameClock.of(game)
        asking = seat.seat
    try:
        created = new_games.create_game(
            env,
            players,
            first_player=first,
            clock=clock,
            await_players=True,
            rematch_of=old_id,
        )
    except game_rows.RematchMade:  # the other player asked at the same moment: theirs stands
        with env.db.read() as session:
            made = game_rows.rematch_of(session, old_id)
            assert made is not None
            return made.public_id
    if contribution is not None:
        new_games.accept(env, created.tokens[asking], contribution, client)
    return created.public_id
