"""The events' recorder: events, their entrants, rounds and boards, each statement here.

Joining is an INSERT under ``UNIQUE(event_id, player_id)`` (a second join is refused by
the database); a round is made once under ``UNIQUE(event_id, number)``, so two runs of
the scheduler racing to pair the same round make it once (the loser gets ``RoundMade``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .models import Event, EventEntrant, EventPairing, EventRound, Game, Player


class RoundMade(RuntimeError):
    """Another transaction made this round first."""


class Joined(RuntimeError):
    """The player is in this event already."""


def add(session: Session, event: Event) -> Event:
    session.add(event)
    session.flush()
    return event


def by_public_id(session: Session, public_id: str, *, lock: bool = False) -> Event | None:
    query = select(Event).where(Event.public_id == public_id)
    if lock:
        query = query.with_for_update()
    return session.scalars(query).one_or_none()


def listed(session: Session, limit: int = 100) -> list[Event]:
    """Open-to-all events, newest first (an invitation-only event is not listed)."""
    return list(
        session.scalars(
            select(Event)
            .where(Event.access == "open")
            .order_by(Event.created_at.desc(), Event.id.desc())
            .limit(limit)
        )
    )


def with_state(session: Session, state: str) -> list[Event]:
    return list(session.scalars(select(Event).where(Event.state == state).order_by(Event.id)))


def join(session: Session, entrant: EventEntrant) -> EventEntrant:
    """Add an entrant; ``Joined`` when that account is in the event already."""
    try:
        with session.begin_nested():
            session.add(entrant)
            session.flush()
    except IntegrityError:
        raise Joined() from None
    return entrant


def active(session: Session, event_id: int) -> list[EventEntrant]:
    return list(
        session.scalars(
            select(EventEntrant)
            .where(EventEntrant.event_id == event_id, EventEntrant.withdrawn_at.is_(None))
            .order_by(EventEntrant.id)
        )
    )


def erased_active(session: Session, event_id: int) -> list[int]:
    """The entrants still in the event whose account was erased (one query: the events
    job asks it of every running event at every run)."""
    return list(
        session.scalars(
            select(EventEntrant.id)
            .join(Player, Player.id == EventEntrant.player_id)
            .where(
                EventEntrant.event_id == event_id,
                EventEntrant.withdrawn_at.is_(None),
                Player.erased_at.is_not(None),
            )
            .order_by(EventEntrant.id)
        )
    )


def forget_player(session: Session, player_id: int, label: str) -> None:
    """An erased account's name in every event it joined becomes its neutral label."""
    session.execute(
        update(EventEntrant).where(EventEntrant.player_id == player_id).values(name=label)
    )


def withdraw(session: Session, entrant_id: int, now: datetime, after: int | None) -> bool:
    """Mark an entrant withdrawn (once); ``after``: the rounds paired so far (None before
    the event started)."""
    done = session.execute(
        update(EventEntrant)
        .where(EventEntrant.id == entrant_id, EventEntrant.withdrawn_at.is_(None))
        .values(withdrawn_at=now, withdrew_after=after)
    )
    return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def rounds(session: Session, event_id: int) -> list[EventRound]:
    return list(
        session.scalars(
            select(EventRound).where(EventRound.event_id == event_id).order_by(EventRound.number)
        )
    )


def add_round(session: Session, event_id: int, number: int, now: datetime) -> EventRound:
    """Make round ``number`` once; ``RoundMade`` if it exists already."""
    row = EventRound(event_id=event_id, number=number, started_at=now)
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError:
        raise RoundMade() from None
    return row


def add_pairings(session: Session, rows: Sequence[EventPairing]) -> None:
    session.add_all(rows)
    session.flush()


def pairings(session: Session, event_id: int) -> list[EventPairing]:
    return list(
        session.scalars(
            select(EventPairing)
            .where(EventPairing.event_id == event_id)
            .order_by(EventPairing.round, EventPairing.board)
        )
    )


def games_of(session: Session, event_id: int) -> dict[int, Game]:
    """The event's games by id (one query)."""
    rows = session.scalars(
        select(Game)
        .join(EventPairing, EventPairing.game_id == Game.id)
        .where(EventPairing.event_id == event_id)
    )
    return {g.id: g for g in rows}


def of_games(session: Session, game_ids: Sequence[int]) -> dict[int, tuple[Event, EventPairing]]:
    """For each of these games that belongs to an event: its event and board."""
    if not game_ids:
        return {}
    rows = session.execute(
        select(EventPairing, Event)
        .join(Event, Event.id == EventPairing.event_id)
        .where(EventPairing.game_id.in_(list(game_ids)))
    )
    return {p.game_id: (e, p) for p, e in rows if p.game_id is not None}


def entrant_count(session: Session, event_id: int) -> int:
    return int(
        session.scalar(
            select(func.count())
            .select_from(EventEntrant)
            .where(EventEntrant.event_id == event_id, EventEntrant.withdrawn_at.is_(None))
        )
        or 0
    )


def entrants_of_player(session: Session, player_id: int) -> list[EventEntrant]:
    return list(session.scalars(select(EventEntrant).where(EventEntrant.player_id == player_id)))


def unrated_game_ids(session: Session) -> set[int]:
    """The games of events that are not rated: never counted in the ratings."""
    rows = session.scalars(
        select(EventPairing.game_id)
        .join(Event, Event.id == EventPairing.event_id)
        .where(Event.rated.is_(False), EventPairing.game_id.is_not(None))
    )
    return {g for g in rows if g is not None}


def link_game(session: Session, pairing_id: int, game_id: int) -> bool:
    """Link a board to its game, once: False if another run linked one first."""
    done = session.execute(
        update(EventPairing)
        .where(EventPairing.id == pairing_id, EventPairing.game_id.is_(None))
        .values(game_id=game_id)
    )
    return bool(done.rowcount == 1)  # type: ignore[attr-defined]
