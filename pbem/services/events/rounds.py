"""An event's rounds: start, pair a round and make its games, end it, finish the event.

Each board's game is an ordinary pbem game (``play.new_games.create_game``, invitations
left out), so every feature of a game works in it; each player gets one mail for the
round: the game's first mail, naming the event, the round and the opponent
(``mailing.queued_mails.event_round``), or their bye's (``mails.bye``). A round ends when
every game of it has ended; a game whose player let the clock run out is ended by the
``events`` job, which claims the win for the other player (docs/events.md,
"Timeouts"). An elimination board whose game has no winner gets a tie-break game in the
same round. The next round is paired then, from the seed and the results; after the
last one the seed is shown and every player is mailed the final standings.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from ... import events as core
from ...clock import as_utc
from ...engine import Match
from ...i18n import lazy_gettext as _l
from ...store import events as event_rows
from ...store import games as game_store
from ...store import outbox as outbox_store
from ...store import wakeup
from ...store.models import Event, EventEntrant, EventPairing, Game, Player
from ..core.access import Client
from ..core.env import Env
from ..core.errors import NotAllowed, ServiceError, WrongState
from ..core.lookup import log_rows, state_of
from ..core.replayed import replay_log
from ..core.status import GameStatus
from ..mailing import queued_mails, told
from ..play import computer, game_clock, moves, new_games
from . import draw, lifecycle, mails

logger = logging.getLogger(__name__)
CLIENT = Client(user_agent="pbem event")


@dataclass
class Advanced:
    """What one run of the ``events`` job did."""

    started: int = 0
    claimed: int = 0
    rounds: int = 0
    finished: int = 0

    def __bool__(self) -> bool:  # the scheduler logs a run that did something
        return any(vars(self).values())


def start(env: Env, public_id: str, *, by: int | None = None) -> int | None:
    """Start an open event: its players fixed, ratings taken for seeding, round 1 paired.

    With fewer than two players the event is cancelled. ``by``: the organiser starting it
    early (docs/events.md), refused unless it is theirs and has two players (an
    organiser's click never cancels). Returns the round paired."""
    now = env.clock.now()
    with env.db.write() as session:
        event = lifecycle.event_row(session, public_id, lock=True)
        if by is not None and event.creator_id != by:
            raise NotAllowed(_l("Only the event's organiser can start it."))
        lifecycle.still_open(event)
        _leave_if_erased(session, event, now, None)
        active = event_rows.active(session, event.id)
        if len(active) < lifecycle.MIN_PLAYERS and by is not None:
            raise WrongState(
                _l("An event starts with two players at least: wait for them, or cancel it.")
            )
        if len(active) < lifecycle.MIN_PLAYERS:
            lifecycle.cancel(session, env, event, active, "too_few")
            return None
        for entrant in active:  # elimination seeds by the rating at the start
            if entrant.player_id is not None:
                player = session.get(Player, entrant.player_id)
                entrant.rating = player.rating_mu if player is not None else None
        event.state, event.started_at = "running", now
    try:
        return pair_next(env, public_id)
    except WrongState:  # the scheduler's job paired round 1 first: it runs all the same
        return 1


def _leave_if_erased(session: Session, event: Event, now: datetime, after: int | None) -> list[int]:
    """Entrants whose account was erased leave the event, as by withdrawing (docs/deploy.md,
    "Retention and erasure"): their seat links are dead, so they could never play. Returns
    the entrants who left (their running games are still to be resigned)."""
    return [
        entrant_id
        for entrant_id in event_rows.erased_active(session, event.id)
        if event_rows.withdraw(session, entrant_id, now, after)
    ]


def _played(session: Session, env: Env, game: Game | None) -> tuple[Match, str] | None:
    """A finished game's match and last chain hash (None while it runs, or frozen)."""
    if game is None or game.status != GameStatus.FINISHED or game.integrity_error:
        return None
    rows = log_rows(session, game)
    return state_of(env, game, rows), rows[-1].hash if rows else ""


def results_of(
    session: Session, env: Env, event: Event, rows: Sequence[EventPairing]
) -> list[core.GameResult | None]:
    """Each board's result so far, in ``rows``' order (None: a bye, or still running)."""
    entrants = {e.id: e for e in draw.counted(event.entrants)}
    games_by_id = event_rows.games_of(session, event.id)
    out = []
    for p in rows:
        game = games_by_id.get(p.game_id) if p.game_id is not None else None
        out.append(draw.board_result(p, entrants, game, _played(session, env, game)))
    return out


def pair_next(env: Env, public_id: str) -> int | None:
    """Pair the next round of a running event whose rounds so far have all ended, make
    its games and mail its players; finish the event when no round is left. Returns the
    round paired (None: the event finished, or another run paired the round first)."""
    now = env.clock.now()
    with env.db.write() as session:
        event = lifecycle.event_row(session, public_id, lock=True)
        if event.state != "running":
            raise WrongState(_l("This event is not running."))
        made = event_rows.rounds(session, event.id)
        if made and made[-1].ended_at is None:
            raise WrongState(_l("The current round has games still running."))
        number = len(made) + 1
        rows = event_rows.pairings(session, event.id)
        results = results_of(session, env, event, rows)
        entrants = draw.counted(event.entrants)
        boards = draw.pair(event, entrants, rows, results, number)
        if not boards:
            _finish(session, env, event, rows, results, now)
            return None
        try:
            event_rows.add_round(session, event.id, number, now)
        except event_rows.RoundMade:
            return None
        _add_boards(session, env, event, boards)
        event_id = event.id
    _make_games(env, event_id)
    return number


def _add_boards(session: Session, env: Env, event: Event, boards: Sequence[core.Pairing]) -> None:
    """The round's boards as rows; a bye's mail at once (a game's comes with the game)."""
    entrants = draw.counted(event.entrants)
    rows = [
        EventPairing(
            event_id=event.id,
            round=b.round,
            board=b.board,
            game=b.game,
            first_id=draw.entrant_row(entrants, b.first).id,
            second_id=draw.entrant_row(entrants, b.second).id if b.second is not None else None,
        )
        for b in boards
    ]
    event_rows.add_pairings(session, rows)
    for b in boards:
        if b.second is None:
            mails.bye(session, env, event, draw.entrant_row(entrants, b.first), b.round)


def _person(player: Player) -> new_games.PlayerIn:
    return new_games.stored_player(
        player.display_name, player.email, player.language, player.timezone
    )


def _clock(days: int | None, against_computer: bool) -> game_clock.GameClock:
    """An event game's clock: the event's days per move and the usual reminders; against
    the computer its own (``computer.CLOCK``: no deadline, the game waits)."""
    if against_computer:
        return computer.CLOCK
    return game_clock.GameClock(days_per_move=days)


def _make_games(env: Env, event_id: int) -> int:
    """Make the games of every board that has none yet and two players still in the
    event, each with its players' round mail; returns how many were made."""
    with env.db.read() as session:
        event = session.get(Event, event_id)
        assert event is not None
        entrants = {e.id: e for e in event.entrants}
        todo = [
            (p.id, p.round, draw.seat_order(p))
            for p in event_rows.pairings(session, event_id)
            if p.second_id is not None
            and p.game_id is None
            and entrants[p.first_id].withdrawn_at is None
            and entrants[p.second_id].withdrawn_at is None
        ]
        people = {e.id: session.get(Player, e.player_id) for e in event.entrants if e.player_id}
        days, rated, name, public_id = event.days_per_move, event.rated, event.name, event.public_id
    for pairing_id, number, seated in todo:
        levels = [entrants[i].computer_level for i in seated]
        level = next((lv for lv in levels if lv is not None), None)
        players = tuple(
            new_games.PlayerIn(computer.name(lv), computer.ADDRESS)
            if lv is not None
            else _person(people[i])  # type: ignore[arg-type]
            for i, lv in zip(seated, levels, strict=True)
        )
        try:
            created = new_games.create_game(
                env,
                players,  # type: ignore[arg-type]
                first_player=0,  # the pairing's first player, in seat 0
                clock=_clock(days, level is not None),
                bot=level,
                bot_seat=levels.index(level) if level is not None else 1,
                invite=False,
            )
        except ServiceError as exc:  # invariant 9: one board's bad row stops no other board
            logger.error(  # tried again at the next run, until the operator mends the row
                "event %s, round %s: no game for pairing %s: %s",
                public_id,
                number,
                pairing_id,
                exc.english,
            )
            continue
        if levels[0] is not None:  # the computer starts: its move first, then the mail
            _computer_opens(env, created.public_id)
        with env.db.write() as session:
            game = game_store.by_public_id(session, created.public_id)
            assert game is not None
            if not rated:
                game.rated_at = game.created_at  # never counted in the ratings
            left = [
                e.id
                for e in (session.get(EventEntrant, i) for i in seated)
                if e is not None and e.withdrawn_at is not None
            ]
            if not event_rows.link_game(session, pairing_id, game.id):
                # another run (the job and ``pbem event pair`` at once) made this board's
                # game first: this one stays unlinked and unmailed, and is ended here
                game.status, game.finished_at = GameStatus.FINISHED.value, game.created_at
                game.integrity_error = "an event board's duplicate game, never played"
                outbox_store.drop_unsent(session, [], [(game.id, 0), (game.id, 1)])
                continue
            log = replay_log(env, session, game)
            opened = told.last_move(log) if log.n else None
            for seat in (0, 1):
                if game.seats[seat].bot is None and seated[seat] not in left:
                    queued_mails.event_round(
                        session,
                        env,
                        game,
                        seat,
                        created.tokens[seat],
                        log.match,
                        event=name,
                        event_url=env.event_url(public_id),
                        round_no=number,
                        opened=opened,
                    )
            _told_by_round_mail(session, game.id)
            to_move = log.match.to_move
            if to_move is not None and game.seats[to_move].bot is not None:
                wakeup.computer_to_move(session)  # the computer starts: at once
        for entrant_id in left:  # withdrew while its game was made: resigned, as on leaving
            resign_games(env, public_id, entrant_id)
    return len(todo)


def _computer_opens(env: Env, public_id: str) -> None:
    """The computer's first move of an event game, made before the round mail is written
    (docs/events.md: one mail per round): that mail shows it, and the person's "your
    turn" queued with the move is dropped as told (``_told_by_round_mail``). Should the
    search fail, the game starts as any game against the computer: its job moves."""
    with env.db.read() as session:
        game = game_store.by_public_id(session, public_id)
        game_id = game.id if game is not None else None
    if game_id is None:
        return
    try:
        computer.move_now(env, game_id)
    except Exception:  # invariant 9: the round's mails still go out
        logger.exception("event game %s: the computer's first move failed", public_id)


def _told_by_round_mail(session: Session, game_id: int) -> None:
    """The "your turn" of the computer's first move, queued before the round mail that
    tells that move: not sent (one mail per round)."""
    for row in outbox_store.unsent_about(session, [game_id]):
        if row.kind == "your_turn" and row.status == "pending":
            outbox_store.mark_dropped(row, "told by the event's round mail")


def resign_games(env: Env, public_id: str, entrant_id: int) -> int:
    """A withdrawn player's running games in the event, each resigned in its own log
    (source ``event``); returns how many."""
    with env.db.read() as session:
        event = lifecycle.event_row(session, public_id)
        found = []
        for p in event_rows.pairings(session, event.id):
            if p.game_id is None or entrant_id not in (p.first_id, p.second_id):
                continue
            game = session.get(Game, p.game_id)
            if game is None or game.status != GameStatus.IN_PROGRESS:
                continue
            seat = draw.seat_order(p).index(entrant_id)
            n = len(log_rows(session, game))
            found.append((game.public_id, seat, game.seats[seat].key_version, n))
    for game_id, seat, version, n in found:
        token = env.links.seat_token(game_id, seat, version)
        try:
            moves.resign(env, token, n + 1, CLIENT, source="event")
        except WrongState:
            logger.info("event %s: game %s moved on while resigning", public_id, game_id)
    return len(found)


def advance(env: Env) -> Advanced:
    """The scheduler's ``events`` job: start the events due, end the games whose clock
    ran out, end the rounds whose games all ended and pair the next, finish the events
    done. One event's trouble never stops the others."""
    done = Advanced()
    now = env.clock.now()
    with env.db.read() as session:
        due = [
            e.public_id
            for e in event_rows.with_state(session, "open")
            if e.start_mode == "date" and e.starts_at is not None and as_utc(e.starts_at) <= now
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
        except Exception:  # invariant 9: one bad event never stops work for the others
            logger.exception("event %s could not advance", public_id)
    return done


def advance_event(env: Env, public_id: str) -> Advanced:
    """One event's step of the ``events`` job, asked for by hand (``pbem event pair``):
    the round ended and the next paired if every game of it has ended."""
    done = Advanced()
    with env.db.read() as session:
        if lifecycle.event_row(session, public_id).state != "running":
            raise WrongState(_l("This event is not running."))
    _advance_one(env, public_id, done)
    return done


def _advance_one(env: Env, public_id: str, done: Advanced) -> None:
    with env.db.read() as session:
        erased = event_rows.erased_active(session, lifecycle.event_row(session, public_id).id)
    if erased:  # rare: a write only then
        _erased_leave(env, public_id)
        return  # the round goes on at the next run, without them
    with env.db.read() as session:
        event = lifecycle.event_row(session, public_id)
        made = event_rows.rounds(session, event.id)
        if made and made[-1].ended_at is not None:
            current = None  # a crash between ending a round and pairing the next
        else:
            current = made[-1].number if made else None
        entrants = {e.id: e for e in event.entrants}
        rows = event_rows.pairings(session, event.id)
        boards = [p for p in rows if p.round == current]
        unmade = any(
            p.game_id is None
            and p.second_id is not None
            and entrants[p.first_id].withdrawn_at is None
            and entrants[p.second_id].withdrawn_at is None
            for p in boards
        )
        overdue, running = [], 0
        for p in boards:
            game = session.get(Game, p.game_id) if p.game_id is not None else None
            if game is None or game.status != GameStatus.IN_PROGRESS:
                continue
            running += 1
            log = log_rows(session, game)
            match = state_of(env, game, log)
            if match.overdue is not None and game.timeout_action == "claim":
                waiting = 1 - match.overdue
                key = game.seats[waiting].key_version
                overdue.append((game.public_id, waiting, key, len(log)))
        event_id = event.id
    if unmade:  # a run cut short between the pairing and the games, or a board refused
        _make_games(env, event_id)
    for game_id, seat, version, n in overdue:  # the round's other games go on meanwhile
        token = env.links.seat_token(game_id, seat, version)
        try:
            moves.claim_win(env, token, n + 1, CLIENT, source="event")
            done.claimed += 1
            running -= 1
        except WrongState:
            pass
    if running or unmade:  # a board made just now runs; one still refused holds the round
        return
    if current is not None and _tie_breaks(env, public_id, current):
        return
    if current is not None:
        with env.db.write() as session:
            row = next(r for r in event_rows.rounds(session, event_id) if r.number == current)
            if row.ended_at is not None:
                return
            row.ended_at = env.clock.now()
    try:
        paired = pair_next(env, public_id)
    except WrongState:  # another run (the organiser's early start, say) paired it first
        return
    if paired is None:
        done.finished += 1
    else:
        done.rounds += 1


def _erased_leave(env: Env, public_id: str) -> None:
    """A running event's erased entrants leave it: their running games resigned, their
    later boards forfeited, as a withdrawal's."""
    with env.db.write() as session:
        event = lifecycle.event_row(session, public_id, lock=True)
        so_far = len(event_rows.rounds(session, event.id))
        gone = _leave_if_erased(session, event, env.clock.now(), so_far)
    for entrant_id in gone:
        resign_games(env, public_id, entrant_id)


def _tie_breaks(env: Env, public_id: str, number: int) -> bool:
    """An elimination round's boards without a winner get a tie-break game; True if any."""
    with env.db.write() as session:
        event = lifecycle.event_row(session, public_id, lock=True)
        rows = event_rows.pairings(session, event.id)
        results = results_of(session, env, event, rows)
        needed = draw.tie_breaks(event, draw.counted(event.entrants), rows, results, number)
        if not needed:
            return False
        _add_boards(session, env, event, needed)
        event_id = event.id
    _make_games(env, event_id)
    return True


def _finish(
    session: Session,
    env: Env,
    event: Event,
    rows: Sequence[EventPairing],
    results: Sequence[core.GameResult | None],
    now: datetime,
) -> None:
    """The last round is over: the seed shown, and every player mailed the final standings."""
    event.state, event.finished_at = "finished", now
    entrants = draw.counted(event.entrants)
    table = draw.standings(event, entrants, rows, results)
    for entrant in entrants:
        if entrant.player_id is not None:
            player = session.get(Player, entrant.player_id)
            if player is not None and player.erased_at is None:
                mails.final(session, env, event, player, table)
