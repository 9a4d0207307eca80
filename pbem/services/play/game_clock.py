"""A game's clock settings and their bounds: the one definition every game is held to, and
that the home page's and the challenges' forms read (issue 31: a hand-made form asked for a
reminder every hour)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from babel.support import LazyProxy

from ...i18n import lazy_gettext as _l
from ...store.models import Game
from ..core.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class Limit:
    """The whole numbers ``low`` to ``high`` that one of a game's clock settings may be."""

    low: int
    high: int

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.low <= value <= self.high

    def nearest(self, value: int) -> int:
        """``value`` brought within the bounds (a game stored before they were set)."""
        return min(max(value, self.low), self.high)


#: The bounds of a game's clock, by ``GameClock`` field. Reminders come at most once a day.
CLOCK_LIMITS: dict[str, Limit] = {
    "days_per_move": Limit(1, 60),
    "reminder_after_hours": Limit(12, 24 * 30),
    "reminder_every_hours": Limit(24, 24 * 30),
    "vacation_days": Limit(0, 60),
}
TIMEOUT_ACTIONS = ("claim", "wait")

#: What a setting outside its bounds is refused with, by field (the bounds filled in).
_OUT_OF_BOUNDS: dict[str, Callable[[Limit], LazyProxy]] = {
    "days_per_move": lambda limit: _l(
        "days per move: between %(low)s and %(high)s, or no limit",
        low=limit.low,
        high=limit.high,
    ),
    "reminder_after_hours": lambda limit: _l(
        "the first reminder comes after %(low)s to %(high)s hours",
        low=limit.low,
        high=limit.high,
    ),
    "reminder_every_hours": lambda limit: _l(
        "reminders repeat every %(low)s to %(high)s hours",
        low=limit.low,
        high=limit.high,
    ),
    "vacation_days": lambda limit: _l(
        "vacation days: %(low)s to %(high)s", low=limit.low, high=limit.high
    ),
}


@dataclass(frozen=True, slots=True)
class GameClock:
    """A game's correspondence clock, chosen when it is created (bounds: ``CLOCK_LIMITS``).

    ``days_per_move`` None is a game with no limit on a move's time."""

    days_per_move: int | None = 3
    reminder_after_hours: int = 24
    reminder_every_hours: int = 48
    timeout_action: str = "claim"  # or "wait"
    vacation_days: int = 10

    def check(self) -> GameClock:
        """This clock, or InvalidInput naming the first setting outside its bounds."""
        for name, limit in CLOCK_LIMITS.items():
            value = getattr(self, name)
            if not (value is None and name == "days_per_move") and value not in limit:
                raise InvalidInput(_OUT_OF_BOUNDS[name](limit))
        if self.timeout_action not in TIMEOUT_ACTIONS:
            raise InvalidInput(
                _l("after a timeout: the waiting player may claim, or the game waits")
            )
        return self

    @classmethod
    def of(cls, game: Game) -> GameClock:
        """A stored game's clock, for its rematch: within today's bounds, even for a game
        made before them (a rematch is asked for with one click; nothing is typed)."""
        days = game.days_per_move
        bounded = {
            name: limit.nearest(getattr(game, name))
            for name, limit in CLOCK_LIMITS.items()
            if name != "days_per_move"
        }
        action = game.timeout_action
        return cls(
            None if days is None else CLOCK_LIMITS["days_per_move"].nearest(days),
            # the default read from an instance: a slotted class's attribute is a descriptor
            timeout_action=action if action in TIMEOUT_ACTIONS else cls().timeout_action,
            **bounded,
        )
