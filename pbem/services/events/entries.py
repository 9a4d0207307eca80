"""Joining an event, entering the computer, withdrawing; the organiser starting it early or
cancelling it before it starts.

Joining is open to anyone signed in who has the event's link, or only with the
invitation key the organiser's link carries; an event that starts when full starts with
the join that fills it. A player who withdraws from a running event has their running
games resigned (each a loss, in the game's own log) and their later boards scored as
losses (docs/events.md, "Withdrawing").
"""

from __future__ import annotations

import secrets

from sqlalchemy.orm import Session

from ...engine import names
from ...i18n import lazy_gettext as _l
from ...store import events as event_rows
from ...store.models import Event, EventEntrant, Player
from ..core.env import Env
from ..core.errors import Missing, NotAllowed, WrongState
from ..play import computer
from . import lifecycle, rounds
from .lifecycle import invitation_hash


def _open(event: Event) -> None:
    if event.state == "cancelled":
        raise WrongState(_l("This event was cancelled: it takes no players."))
    if event.state != "open":
        raise WrongState(_l("This event has started: it takes no new players."))


def _room(session: Session, event: Event) -> None:
    if event_rows.entrant_count(session, event.id) >= event.max_players:
        raise WrongState(_l("This event is full."))


def join(env: Env, public_id: str, player_id: int, invitation: str | None = None) -> bool:
    """Join an event; True when this filled an event that starts when full (it starts)."""
    now = env.clock.now()
    with env.db.write() as session:
        event = lifecycle.event_row(session, public_id, lock=True)
        _open(event)
        if (
            event.access == "invitation"
            and player_id != event.creator_id
            and (
                not invitation
                or not secrets.compare_digest(
                    invitation_hash(invitation), event.invitation_hash or ""
                )
            )
        ):
            raise NotAllowed(_l("This event is by invitation: open the link you were sent."))
        _room(session, event)
        player = session.get(Player, player_id)
        if player is None or player.erased_at is not None:
            raise Missing(_l("There is no such player."))
        again = next((e for e in event.entrants if e.player_id == player_id), None)
        if again is not None and again.withdrawn_at is not None:
            again.withdrawn_at = None  # left before the start, and back
        elif again is not None:
            raise WrongState(_l("You are in this event already."))
        else:
            event_rows.join(
                session,
                EventEntrant(
                    event_id=event.id,
                    player_id=player_id,
                    name=names.sanitized(player.display_name),
                    rating=player.rating_mu,
                    joined_at=now,
                ),
            )
        session.flush()
        starts = _full(session, event)
    return starts and _start_full(env, public_id)


def _start_full(env: Env, public_id: str) -> bool:
    """Start the event a join filled; True if it runs. The join is kept already: if the
    organiser started or cancelled the event in between, that stands, and the join is
    no failure (the cancellation's mail reached this player too)."""
    try:
        rounds.start(env, public_id)
    except WrongState:
        with env.db.read() as session:
            return lifecycle.event_row(session, public_id).state == "running"
    return True


def _full(session: Session, event: Event) -> bool:
    """Whether the event starts now: it starts when full, and it is."""
    full = event_rows.entrant_count(session, event.id) >= event.max_players
    return full and event.start_mode == "full"


def enter_computer(env: Env, public_id: str, player_id: int, level: str | None) -> bool:
    """The organiser enters the computer at a level (one computer per event); True
    when this filled an event that starts when full (it starts)."""
    level = computer.checked_level(level)
    now = env.clock.now()
    with env.db.write() as session:
        event = lifecycle.event_row(session, public_id, lock=True)
        if event.creator_id != player_id:
            raise NotAllowed(_l("Only the event's organiser can enter the computer."))
        _open(event)
        _room(session, event)
        if any(e.computer_level is not None for e in event_rows.active(session, event.id)):
            raise WrongState(_l("The computer is in this event already."))
        event_rows.join(
            session,
            EventEntrant(
                event_id=event.id,
                computer_level=level,
                name=computer.name(level),
                rating=None,
                joined_at=now,
            ),
        )
        session.flush()
        starts = _full(session, event)
    return starts and _start_full(env, public_id)


def withdraw(env: Env, public_id: str, player_id: int) -> None:
    """Leave an event. Before it starts the place is freed; once it runs, the player's
    running games are resigned (each a loss, as a resignation in the game's own log)
    and the rounds still to come score their boards as losses (``rounds.py``)."""
    now = env.clock.now()
    with env.db.write() as session:
        event = lifecycle.event_row(session, public_id, lock=True)
        if event.state == "cancelled":
            raise WrongState(_l("This event was cancelled."))
        if event.state == "finished":
            raise WrongState(_l("This event is over."))
        entrant = next(
            (e for e in event.entrants if e.player_id == player_id and e.withdrawn_at is None),
            None,
        )
        if entrant is None:
            raise Missing(_l("You are not in this event."))
        running = event.state == "running"
        event_rows.withdraw(
            session, entrant.id, now, len(event_rows.rounds(session, event.id)) if running else None
        )
        entrant_id = entrant.id
    if running:
        rounds.resign_games(env, public_id, entrant_id)


def start_now(env: Env, public_id: str, player_id: int) -> int | None:
    """The organiser starts their open event now, with the players who joined (two at
    least); returns the round paired (``rounds.start``)."""
    return rounds.start(env, public_id, by=player_id)


def cancel(env: Env, public_id: str, player_id: int, *, confirmed: bool = True) -> None:
    """The organiser cancels their event before it starts; who joined is mailed. The page's
    form asks to confirm (``confirmed``), checked after who may cancel and whether the
    event still can be."""
    lifecycle.cancel_by_organiser(env, public_id, player_id, confirmed)
