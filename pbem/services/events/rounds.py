"""An event's rounds: start, pair a round and make its games, end it, finish the event.

Each board's game is an ordinary pbem game (``play.games.create_game``, invitations
left out), so every feature of a game works in it; each player gets one mail for the
round, naming their game and their opponent (``mailing.game_mails.event_round``) or
their bye. A round ends when every game of it has ended; a game whose player let the
clock run out is ended by the ``events`` job, which claims the win for the other
player at once (docs/events.md, "Timeouts"). The next round is paired then, from the
seed and the results; after the last one the seed is shown and everyone is mailed
the final standings.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from ...i18n import lazy_gettext as _l
from ...store import events as event_rows
from ...store.models import Event, EventEntrant, EventPairing, Game, Player
from ..core.access import Client
from ..core.env import Env
from ..core.errors import WrongState
from ..core.log import log_rows, state_of
from ..core.status import GameStatus
from ..mailing import game_mails
from ..play import computer, games, moves
from . import draw, lifecycle, mails

logger = logging.getLogger(__name__)


@dataclass
class Advanced:
    """What one run of the ``events`` job did."""

    started: int = 0
    claimed: int = 0
    rounds: int = 0
    finished: int = 0


def start(env: Env, public_id: str) -> int | None:
    """Start an open event: its entrants fixed, ratings taken for seeding, round 1 paired.

    Fewer than two players at the start: the event is cancelled. Returns the round paired."""
    now = env.clock.now()
    with env.db.write() as session:
        event = lifecycle.event_row(session, public_id, lock=True)
        if event.state != "open":
            raise WrongState(_l("This event has started already."))
        active = event_rows.active(session, event.id)
        if len(active) < lifecycle.MIN_PLAYERS:
            event.state, event.finished_at = "cancelled", now
            return None
        for entrant in active:  # elimination seeds by the rating at the start
            if entrant.player_id is not None:
                player = session.get(Player, entrant.player_id)
                entrant.rating = player.rating_mu if player is not None else None
        event.state, event.started_at = "running", now
    return pair_next(env, public_id)


def _entrants(event: Event) -> list[EventEntrant]:
    return list(event.entrants)


def results_of(session: Session, env: Env, event: Event) -> list[draw.BoardResult]:
    """Every board's result so far: a finished game's, a bye's, a forfeit's."""
    entrants = {e.id: e for e in event.entrants}
    game_rows = event_rows.games_of(session, event.id)
    out = []
    for p in event_rows.pairings(session, event.id):
        game = game_rows.get(p.game_id) if p.game_id is not None else None
        out.append(draw.board_result(p, entrants, game, _match_of(session, env, game)))
    return out


def _match_of(session: Session, env: Env, game: Game | None):  # type: ignore[no-untyped-def]
    if game is None or game.status != GameStatus.FINISHED or game.integrity_error:
        return None
    rows = log_rows(session, game)
    return state_of(env, game, rows), (rows[-1].hash if rows else "")


def pair_next(env: Env, public_id: str) -> int | None:
    """Pair the next round of a running event whose rounds so far have all ended, make
    its games and mail its players; finish the event when no round is left. Returns the
    round paired (None: finished, or another run paired it first)."""
    now = env.clock.now()
    with env.db.write() as session:
        event = lifecycle.event_row(session, public_id, lock=True)
        if event.state != "running":
            raise WrongState(_l("This event is not running."))
        made = event_rows.rounds(session, event.id)
        if made and made[-1].ended_at is None:
            raise WrongState(_l("The current round has games still running."))
        number = len(made) + 1
        results = results_of(session, env, event)
        boards = draw.pair(event, _entrants(event), results, number)
        if not boards:
            _finish(session, env, event, results, now)
            return None
        try:
            event_rows.add_round(session, event.id, number, now)
        except event_rows.RoundMade:
            return None
        withdrawn = {e.id for e in event.entrants if e.withdrawn_at is not None}
        rows = [
            EventPairing(
                event_id=event.id,
                round=number,
                board=b.board,
                first_id=b.first,
                second_id=b.second,
            )
            for b in boards
        ]
        event_rows.add_pairings(session, rows)
        for row in rows:
            if row.second_id is None:
                mails.bye(session, env, event, _by_id(event, row.first_id), number)
            elif withdrawn & {row.first_id, row.second_id}:
                pass  # a forfeit: scored as the withdrawn player's loss, no game
        event_id = event.id
    _make_games(env, event_id, number)
    return number


def _by_id(event: Event, entrant_id: int) -> EventEntrant:
    return next(e for e in event.entrants if e.id == entrant_id)


def seats_of(pairing: EventPairing) -> tuple[int, int]:
    """The entrants in seats 0 and 1 of a board's game: the first player in seat 0,
    unless the first player is the computer, whose seat is always seat 1."""
    assert pairing.second_id is not None
    return (pairing.first_id, pairing.second_id)


def _make_games(env: Env, event_id: int, number: int) -> None:
    """Make the round's games, each with its players' round mail (one mail each)."""
    with env.db.read() as session:
        event = session.get(Event, event_id)
        assert event is not None
        todo = [
            (p.id, _by_id(event, p.first_id), _by_id(event, p.second_id))
            for p in event_rows.pairings(session, event_id)
            if p.round == number and p.second_id is not None and p.game_id is None
            and _by_id(event, p.first_id).withdrawn_at is None
            and _by_id(event, p.second_id).withdrawn_at is None
        ]
        people = {
            e.id: session.get(Player, e.player_id) for e in event.entrants if e.player_id
        }
        days, rated, name, public_id = event.days_per_move, event.rated, event.name, event.public_id
    for pairing_id, first, second in todo:
        bot_first = first.computer_level is not None
        seat0, seat1 = (second, first) if bot_first else (first, second)
        level = seat1.computer_level

        def person(e: EventEntrant) -> games.PlayerIn:
            p = people[e.id]
            assert p is not None
            return games.stored_player(p.display_name, p.email, p.language, p.timezone)

        clock = (
            games.GameClock(days_per_move=days, vacation_days=0 if level else 10)
            if level is None
            else games.GameClock(
                days_per_move=None, reminder_after_hours=7 * 24,
                reminder_every_hours=14 * 24, timeout_action="wait", vacation_days=0,
            )
        )
        created = games.create_game(
            env,
            (
                person(seat0),
                person(seat1) if level is None else games.PlayerIn(
                    computer.name(level), computer.ADDRESS
                ),
            ),
            first_player=1 if bot_first else 0,
            clock=clock,
            bot=level,
            invite=False,
        )
        with env.db.write() as session:
            game = session.scalars(
                __import__("sqlalchemy").select(Game).where(Game.public_id == created.public_id)
            ).one()
            if not rated:
                game.rated_at = game.created_at  # never counted in the ratings
            pairing = session.get(EventPairing, pairing_id)
            assert pairing is not None
            pairing.game_id = game.id
            session.flush()
            match = state_of(env, game, [])
            for seat in (0, 1):
                if game.seats[seat].bot is None:
                    game_mails.event_round(
                        session, env, game, seat, created.tokens[seat], match,
                        event=name, event_url=env.event_url(public_id), round_no=number,
                    )
            if level is not None and match.to_move == 1:
                from ...store import wakeup

                wakeup.computer_to_move(session)


def resign_games(env: Env, public_id: str, entrant_id: int) -> None:
    """A withdrawn player's running games of the event: each resigned in its own log."""
    with env.db.read() as session:
        event = lifecycle.event_row(session, public_id)
        found = []
        for p in event_rows.pairings(session, event.id):
            if p.game_id is None or entrant_id not in (p.first_id, p.second_id):
                continue
            game = session.get(Game, p.game_id)
            if game is None or game.status != GameStatus.IN_PROGRESS:
                continue
            seat = next(
                s.seat for s in game.seats if s.bot is None and _entrant_seat(event, p, s.seat)
                == entrant_id
            )
            found.append((game.public_id, seat, game.seats[seat].key_version, len(log_rows(session, game))))
    for game_id, seat, version, n in found:
        token = env.links.seat_token(game_id, seat, version)
        try:
            moves.resign(env, token, n + 1, Client(user_agent="pbem event"), source="event")
        except WrongState:
            logger.info("event %s: game %s moved on while resigning", public_id, game_id)


def _entrant_seat(event: Event, p: EventPairing, seat: int) -> int:
    """The entrant in ``seat`` of board ``p``'s game (``_make_games``' rule)."""
    first, second = _by_id(event, p.first_id), p.second_id
    assert second is not None
    order = (second, first.id) if first.computer_level is not None else (first.id, second)
    return order[seat]


def advance(env: Env) -> Advanced:
    """The scheduler's ``events`` job: start the events due, end what timed out, end the
    rounds whose games all ended and pair the next ones, finish the events done."""
    done = Advanced()
    now = env.clock.now()
    with env.db.read() as session:
        due = [
            e.public_id
            for e in event_rows.with_state(session, "open")
            if e.start_mode == "date" and e.starts_at is not None and _utc(e.starts_at) <= now
        ]
        running = [e.public_id for e in event_rows.with_state(session, "running")]
    for public_id in due:
        try:
            start(env, public_id)
            done.started += 1
        except WrongState:
            pass
    for public_id in running:
        try:
            _advance_one(env, public_id, done)
        except Exception:  # one event's trouble never stops the others (invariant 9)
            logger.exception("event %s could not advance", public_id)
    return done


def _utc(at: datetime) -> datetime:
    from ...clock import as_utc

    return as_utc(at)


def _advance_one(env: Env, public_id: str, done: Advanced) -> None:
    with env.db.read() as session:
        event = lifecycle.event_row(session, public_id)
        made = event_rows.rounds(session, event.id)
        if not made or made[-1].ended_at is not None:
            current = None
        else:
            current = made[-1].number
        boards = [p for p in event_rows.pairings(session, event.id) if p.round == current]
        overdue, running = [], 0
        for p in boards:
            if p.game_id is None:
                continue
            game = session.get(Game, p.game_id)
            assert game is not None
            if game.status == GameStatus.FINISHED:
                continue
            running += 1
            rows = log_rows(session, game)
            match = state_of(env, game, rows)
            if match.overdue is not None and game.timeout_action == "claim":
                overdue.append((game.public_id, 1 - match.overdue, game.seats, len(rows)))
        event_id, missing = event.id, any(
            p.game_id is None and p.second_id is not None
            and all(_by_id(event, i).withdrawn_at is None for i in (p.first_id, p.second_id))
            for p in boards
        )
    if current is not None and missing:
        _make_games(env, event_id, current)  # a run cut short between pairing and games
        return
    for game_id, seat, seats, n in overdue:
        token = env.links.seat_token(game_id, seat, seats[seat].key_version)
        try:
            moves.claim_win(env, token, n + 1, Client(user_agent="pbem event"), source="event")
            done.claimed += 1
            running -= 1
        except WrongState:
            pass
    if running:
        return
    if current is not None:
        with env.db.write() as session:
            row = next(r for r in event_rows.rounds(session, event_id) if r.number == current)
            if row.ended_at is not None:
                return
            row.ended_at = env.clock.now()
    if pair_next(env, public_id) is None:
        done.finished += 1
    else:
        done.rounds += 1


def _finish(
    session: Session, env: Env, event: Event, results: list[draw.BoardResult], now: datetime
) -> None:
    """The last round is over: the seed shown, and everyone mailed the final standings."""
    event.state, event.finished_at = "finished", now
    table = draw.standings(event, _entrants(event), results)
    for entrant in event.entrants:
        if entrant.player_id is not None:
            player = session.get(Player, entrant.player_id)
            if player is not None and player.erased_at is None:
                mails.final(session, env, event, player, table)
