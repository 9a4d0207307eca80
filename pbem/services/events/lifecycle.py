"""An event created: the organiser's choices checked, the seed drawn and committed to.

Every choice the organiser does not make by hand is drawn from the event's seed
(``pbem.events``), committed to (its SHA-256 shown) when the event is created and shown
once it is over. Joining and leaving are ``entries.py``'s, the rounds ``rounds.py``'s.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from ...i18n import lazy_gettext as _l
from ...store import events as event_rows
from ...store.models import Event, EventEntrant, Player
from ..core.env import Env
from ..core.errors import InvalidInput, Missing, NotAllowed, WrongState
from ..core.identity import checked_name, new_public_id
from ..play import game_clock
from . import draw, mails

#: The formats a person may choose (``pbem.events``' names).
FORMATS = draw.FORMATS
START_MODES = ("full", "date")
ACCESS = ("open", "invitation")
MIN_PLAYERS = 2
MAX_PLAYERS = 64
MAX_SWISS_ROUNDS = 20


def default_rounds(max_players: int) -> int:
    """A Swiss event's rounds when the organiser sets none: ceil(log2 of the most players),
    the fewest after which one player can have won every game (docs/events.md)."""
    return max(1, (max(max_players, 2) - 1).bit_length())


@dataclass(frozen=True, slots=True)
class EventSpec:
    """What the organiser chooses (each part checked by ``check``)."""

    name: str
    format: str = "swiss"
    days_per_move: int | None = 3
    max_players: int = 8
    start_mode: str = "full"
    starts_at: datetime | None = None
    rated: bool = True
    access: str = "open"
    rounds: int | None = None  # Swiss only

    def check(self, now: datetime) -> EventSpec:
        name = checked_name(self.name, _l("Event name"))
        if self.format not in FORMATS:
            raise InvalidInput(_l("Choose a format: round robin, Swiss or elimination."))
        days = game_clock.CLOCK_LIMITS["days_per_move"]
        if self.days_per_move is not None and self.days_per_move not in days:
            raise InvalidInput(
                _l(
                    "days per move: between %(low)s and %(high)s, or no limit",
                    low=days.low,
                    high=days.high,
                )
            )
        if not MIN_PLAYERS <= self.max_players <= MAX_PLAYERS:
            raise InvalidInput(
                _l("players: %(low)s to %(high)s", low=MIN_PLAYERS, high=MAX_PLAYERS)
            )
        if self.start_mode not in START_MODES:
            raise InvalidInput(_l("An event starts when it is full, or at a date."))
        if self.start_mode == "date" and (self.starts_at is None or self.starts_at <= now):
            raise InvalidInput(_l("Choose a start date in the future."))
        if self.access not in ACCESS:
            raise InvalidInput(_l("An event is open to anyone with its link, or by invitation."))
        rounds = self.rounds
        if self.format == "swiss":
            rounds = default_rounds(self.max_players) if rounds is None else rounds
            if not 1 <= rounds <= MAX_SWISS_ROUNDS:
                raise InvalidInput(_l("Swiss rounds: 1 to %(high)s", high=MAX_SWISS_ROUNDS))
        else:
            rounds = None
        return EventSpec(
            name,
            self.format,
            self.days_per_move,
            self.max_players,
            self.start_mode,
            self.starts_at if self.start_mode == "date" else None,
            bool(self.rated),
            self.access,
            rounds,
        )


@dataclass(frozen=True, slots=True)
class Created:
    public_id: str
    commitment: str
    #: The key an invitation-only event's link carries (None for an open event).
    invitation: str | None


def invitation_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create(env: Env, player_id: int, spec: EventSpec) -> Created:
    """A new event by a signed-in player: its seed drawn and committed to now."""
    now = env.clock.now()
    spec = spec.check(now)
    seed = draw.new_seed()
    key = secrets.token_urlsafe(16) if spec.access == "invitation" else None
    with env.db.write() as session:
        if session.get(Player, player_id) is None:
            raise Missing(_l("There is no such player."))
        event = event_rows.add(
            session,
            Event(
                public_id=new_public_id(),
                name=spec.name,
                format=spec.format,
                rounds=spec.rounds,
                days_per_move=spec.days_per_move,
                max_players=spec.max_players,
                start_mode=spec.start_mode,
                starts_at=spec.starts_at,
                rated=spec.rated,
                access=spec.access,
                invitation_hash=invitation_hash(key) if key else None,
                creator_id=player_id,
                commitment=draw.commitment(seed),
                seed=seed.hex(),
                state="open",
                created_at=now,
            ),
        )
        return Created(event.public_id, event.commitment, key)


def event_row(session: Session, public_id: str, *, lock: bool = False) -> Event:
    event = event_rows.by_public_id(session, public_id, lock=lock)
    if event is None:
        raise Missing(_l("There is no such event."))
    return event


def still_open(event: Event) -> None:
    """``WrongState`` unless the event still takes players (not started, not cancelled)."""
    if event.state == "cancelled":
        raise WrongState(_l("This event was cancelled."))
    if event.state != "open":
        raise WrongState(_l("This event has started already."))


def cancel(
    session: Session, env: Env, event: Event, active: Sequence[EventEntrant], why: str
) -> None:
    """Cancel an open event (``why``: "too_few" at its start, or "organiser"): its page
    says so and shows the seed (no pairing depends on it); each person who joined is
    mailed."""
    event.state, event.finished_at, event.cancelled_by = "cancelled", env.clock.now(), why
    for entrant in active:
        player = session.get(Player, entrant.player_id) if entrant.player_id else None
        if player is not None:
            mails.cancelled(session, env, event, player)


def cancel_by_organiser(env: Env, public_id: str, player_id: int, confirmed: bool) -> None:
    """The organiser cancels their event before it starts (docs/events.md)."""
    with env.db.write() as session:
        event = event_row(session, public_id, lock=True)
        if event.creator_id != player_id:
            raise NotAllowed(_l("Only the event's organiser can cancel it."))
        if event.state in ("running", "finished"):
            raise WrongState(_l("This event has started: it can no longer be cancelled."))
        still_open(event)
        if not confirmed:
            raise InvalidInput(_l("Tick the box to confirm that the event is to be cancelled."))
        cancel(session, env, event, event_rows.active(session, event.id), "organiser")
