"""A player's games, sorted for their "my games" page: their move first, then the
opponent's, then the finished ones; each with its seat link, turn, clock and result.

The public player page (``public_player``) lists the same games without the links.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ...clock import as_utc
from ...engine import Termination
from ...i18n import lazy_gettext as _l
from ...store import events as event_rows
from ...store.models import Player
from ..core.env import Env
from ..core.errors import Frozen, NotAllowed
from ..core.identity import seats_of
from ..core.lookup import log_rows, state_of
from ..core.replayed import seat_names
from ..core.status import GameStatus
from ..play.turns import current_clock, turn_started


@dataclass(frozen=True, slots=True)
class MyGame:
    public_id: str
    seat: int
    opponent: str
    #: None for a frozen game: its stored log does not verify, so its state is not known.
    status: GameStatus | None
    my_turn: bool
    moves: int
    last_move: str | None
    last_at: datetime
    deadline: datetime | None
    result: Any  # lazy text: "won 2–1 on time"
    link: str
    computer: str | None = None  #: the computer's level, in a game against it (not rated)
    #: The event and round the game is played in (None for a game of its own).
    event: EventTag | None = None

    @property
    def waiting(self) -> bool:
        """Not dealt yet: the players' random bytes are awaited."""
        return self.status is GameStatus.WAITING

    @property
    def finished(self) -> bool:
        return self.status is GameStatus.FINISHED

    @property
    def frozen(self) -> bool:
        """Its stored log does not verify: no turn, no clock, no result (its pages say why)."""
        return self.status is None


@dataclass(frozen=True, slots=True)
class EventTag:
    public_id: str
    name: str
    round: int
    state: str


@dataclass(frozen=True, slots=True)
class MyEvent:
    """An event the player plays in, with its games (newest round first)."""

    public_id: str
    name: str
    state: str
    games: list[MyGame]


@dataclass(frozen=True, slots=True)
class MyGames:
    """The lists hold every game (``my_games`` leaves the events' out of ``waiting`` and
    ``finished``); ``events`` every event game again, grouped under its event."""

    player: Player
    my_turn: list[MyGame]
    waiting: list[MyGame]
    finished: list[MyGame]
    events: list[MyEvent] = field(default_factory=list)


#: What the list says of a game whose log does not verify (its pages say what broke).
FROZEN = _l("frozen: its stored log does not verify")

#: A finished game's result as its player reads it, by (won or lost, how it ended).
RESULTS: dict[tuple[bool, Termination], Any] = {
    (True, Termination.SEALS): lambda **k: _l("won %(mine)s–%(theirs)s", **k),
    (False, Termination.SEALS): lambda **k: _l("lost %(mine)s–%(theirs)s", **k),
    (True, Termination.RESIGNATION): lambda **k: _l("won %(mine)s–%(theirs)s by resignation", **k),
    (False, Termination.RESIGNATION): lambda **k: _l(
        "lost %(mine)s–%(theirs)s by resignation", **k
    ),
    (True, Termination.CLAIM): lambda **k: _l("won %(mine)s–%(theirs)s on time", **k),
    (False, Termination.CLAIM): lambda **k: _l("lost %(mine)s–%(theirs)s on time", **k),
}


def _frozen(game: Any, seat: int, opponent: str, rows: list[Any], link: str) -> MyGame:
    """A game whose log does not verify, listed as such: no turn, no clock, no result."""
    return MyGame(
        game.public_id,
        seat,
        opponent,
        None,
        False,
        len(rows),
        None,
        turn_started(game, rows),
        None,
        FROZEN,
        link,
    )


def my_games(env: Env, player_id: int) -> MyGames:
    """The player's games: waiting for their move first, then for the opponent, then done;
    an event's games (but those waiting for the player's move) only under their event."""
    every = games_of(env, player_id, links=True)
    return replace(
        every,
        waiting=[g for g in every.waiting if g.event is None],
        finished=[g for g in every.finished if g.event is None],
    )


def games_of(env: Env, player_id: int, *, links: bool) -> MyGames:
    """``links``: with each seat's link (the player's own list); without, none is made."""
    now = env.clock.now()
    with env.db.read() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise NotAllowed()
        out: list[MyGame] = []
        for seat in seats_of(session, player):
            game = seat.game
            rows = log_rows(session, game)
            token = (
                env.links.seat_token(game.public_id, seat.seat, seat.key_version) if links else None
            )
            url = env.seat_url(token) if token is not None else ""
            opponent = seat_names(game)[1 - seat.seat]
            if not game.dealt:
                out.append(
                    MyGame(
                        game.public_id,
                        seat.seat,
                        opponent,
                        GameStatus.WAITING,
                        seat.contribution is None,
                        0,
                        None,
                        as_utc(game.created_at),
                        None,
                        None,
                        url,
                        computer=game.seats[1 - seat.seat].bot,
                    )
                )
                continue
            try:
                match = state_of(env, game, rows)
            except Frozen:
                out.append(_frozen(game, seat.seat, opponent, rows, url))
                continue
            clock = current_clock(game, rows, match, now)
            result = None
            outcome = match.outcome()
            if outcome is not None:
                won = outcome.winner == seat.seat
                score = dict(mine=outcome.seals[seat.seat], theirs=outcome.seals[1 - seat.seat])
                result = RESULTS[won, outcome.termination](**score)
            out.append(
                MyGame(
                    game.public_id,
                    seat.seat,
                    opponent,
                    GameStatus(match.status.value),
                    match.to_move == seat.seat,
                    len(rows),
                    rows[-1].move if rows else None,
                    turn_started(game, rows),
                    clock.deadline if clock else None,
                    result,
                    url,
                    computer=game.seats[1 - seat.seat].bot,
                )
            )
        tags = event_rows.of_games(session, [seat.game_id for seat in seats_of(session, player)])
        by_public = {s.game.public_id: s.game_id for s in seats_of(session, player)}
        out = [_tagged(g, tags.get(by_public[g.public_id])) for g in out]
        events: dict[str, MyEvent] = {}
        for g in out:
            if g.event is not None:
                e = g.event
                events.setdefault(
                    e.public_id, MyEvent(e.public_id, e.name, e.state, [])
                ).games.append(g)
        for mine_in in events.values():
            mine_in.games.sort(key=lambda g: g.event.round if g.event else 0, reverse=True)
        mine = sorted(
            (g for g in out if g.my_turn and not g.finished),
            key=lambda g: (g.deadline or datetime.max.replace(tzinfo=now.tzinfo), g.last_at),
        )
        theirs = sorted(
            (g for g in out if not g.my_turn and not g.finished),
            key=lambda g: g.last_at,
            reverse=True,
        )
        done = sorted(
            (g for g in out if g.finished),
            key=lambda g: g.last_at,
            reverse=True,
        )
        return MyGames(player, mine, theirs, done, list(events.values()))


def _tagged(game: MyGame, found: Any) -> MyGame:
    """A game with its event's tag, if it is played in one (``found``: event and board)."""
    if found is None:
        return game
    event, board = found
    return replace(game, event=EventTag(event.public_id, event.name, board.round, event.state))
