"""What the events' pages and the API show: the list, one event's page, its record.

The standings, the crosstable and the pairings are recomputed from the results each
time (``draw``): nothing of them is stored (like a game's state, invariant 1). The seed
is shown only once the event is over: finished, or cancelled before it started.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...clock import as_utc
from ...store import events as event_rows
from ...store.models import Event
from ..core.env import Env
from . import draw, lifecycle, rounds


@dataclass(frozen=True, slots=True)
class EventSummary:
    public_id: str
    name: str
    format: str
    state: str
    players: int
    max_players: int
    days_per_move: int | None
    start_mode: str
    starts_at: datetime | None
    rated: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Board:
    board: int
    first: str
    second: str | None  # None: a bye
    game: str | None  # the game's public id (None: a bye or a forfeit)
    status: str | None  # the game's status
    #: "1-0", "0-1", "bye", "forfeit", or None while it runs
    result: str | None


@dataclass(frozen=True, slots=True)
class RoundView:
    number: int
    started_at: datetime
    ended_at: datetime | None
    boards: tuple[Board, ...]


@dataclass(frozen=True, slots=True)
class Entrant:
    name: str
    computer: str | None  # the computer's level
    withdrawn: bool
    mine: bool


@dataclass(frozen=True, slots=True)
class EventPage:
    summary: EventSummary
    access: str
    commitment: str
    seed: str | None  # only once the event is finished or cancelled (nothing depends on it)
    rounds_planned: int | None
    entrants: tuple[Entrant, ...]
    standings: tuple[draw.Row, ...]
    tiebreaks: tuple[str, ...]  #: the tie-breaks' keys, in order (``draw.TIEBREAK_KEYS``)
    crosstable: draw.Cross | None  # round robin only
    rounds: tuple[RoundView, ...]
    organiser: bool
    #: The viewer: None (not signed in or not in it), "in", or "withdrawn".
    me: str | None
    #: Why a cancelled event was: "too_few" players at its start, or its "organiser".
    cancelled_by: str | None = None

    @property
    def can_join(self) -> bool:
        return (
            self.summary.state == "open"
            and self.me is None
            and (self.summary.players < self.summary.max_players)
        )

    @property
    def can_start(self) -> bool:
        """The organiser may start an open event early, with two players or more."""
        return self.organiser and self.summary.state == "open" and self.summary.players >= 2

    @property
    def rematches_if_started(self) -> bool:
        """Whether a Swiss its organiser may start now has more rounds than its players so
        far can play without a rematch: then some pair is certain to meet twice (more
        games than pairs of players)."""
        if not self.can_start or self.summary.format != "swiss" or self.rounds_planned is None:
            return False
        return self.rounds_planned > draw.rounds_without_rematch(self.summary.players)

    @property
    def can_cancel(self) -> bool:
        """The organiser may cancel an event until it starts."""
        return self.organiser and self.summary.state == "open"

    @property
    def can_withdraw(self) -> bool:
        return self.me == "in" and self.summary.state in ("open", "running")


def _summary(event: Event) -> EventSummary:
    return EventSummary(
        event.public_id,
        event.name,
        event.format,
        event.state,
        sum(1 for e in event.entrants if e.withdrawn_at is None),  # the places taken
        event.max_players,
        event.days_per_move,
        event.start_mode,
        as_utc(event.starts_at) if event.starts_at is not None else None,
        event.rated,
        as_utc(event.created_at),
    )


def listing(env: Env) -> list[EventSummary]:
    with env.db.read() as session:
        return [_summary(e) for e in event_rows.listed(session)]


def event_page(env: Env, public_id: str, viewer_id: int | None = None) -> EventPage:
    with env.db.read() as session:
        event = lifecycle.event_row(session, public_id)
        entrants = draw.counted(event.entrants)
        names = {e.id: e.name for e in event.entrants}
        keys = draw.keys(entrants)
        pairings = event_rows.pairings(session, event.id)
        results = rounds.results_of(session, env, event, pairings)
        by_board = dict(zip((p.id for p in pairings), results, strict=True))
        game_rows = event_rows.games_of(session, event.id)
        round_views = []
        for r in event_rows.rounds(session, event.id):
            boards = []
            for p in pairings:
                if p.round != r.number:
                    continue
                game = game_rows.get(p.game_id) if p.game_id is not None else None
                boards.append(
                    Board(
                        p.board,
                        names[p.first_id],
                        names[p.second_id] if p.second_id is not None else None,
                        game.public_id if game is not None else None,
                        game.status if game is not None else None,
                        draw.result_text(by_board[p.id], p, keys),
                    )
                )
            round_views.append(
                RoundView(
                    r.number,
                    as_utc(r.started_at),
                    as_utc(r.ended_at) if r.ended_at else None,
                    tuple(boards),
                )
            )
        mine = next((e for e in event.entrants if viewer_id and e.player_id == viewer_id), None)
        table = draw.standings(event, entrants, pairings, results)
        return EventPage(
            _summary(event),
            event.access,
            event.commitment,
            draw.seed_shown(event),
            draw.rounds_planned(event, entrants) if event.state != "cancelled" else None,
            tuple(
                Entrant(e.name, e.computer_level, e.withdrawn_at is not None, e is mine)
                for e in event.entrants
                if e in entrants or e.withdrawn_at is None
            ),
            tuple(table) if event.state != "cancelled" else (),  # who joined, not a table
            draw.TIEBREAK_KEYS.get(event.format, ()),
            draw.crosstable(event, entrants, pairings, results)
            if draw.is_round_robin(event) and event.state in ("running", "finished")
            else None,  # a cancelled event played nothing
            tuple(round_views),
            viewer_id is not None and event.creator_id == viewer_id,
            None if mine is None else ("withdrawn" if mine.withdrawn_at else "in"),
            (event.cancelled_by or "too_few") if event.state == "cancelled" else None,
        )


def record(env: Env, public_id: str) -> dict[str, Any]:
    """The event record (``jaipur-event/1``): the seed in it only once the event is over
    (finished, or cancelled before it started)."""
    with env.db.read() as session:
        event = lifecycle.event_row(session, public_id)
        rows = event_rows.pairings(session, event.id)
        results = rounds.results_of(session, env, event, rows)
        return draw.record(event, draw.counted(event.entrants), rows, results)
