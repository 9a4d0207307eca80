"""A player in an event, as pairing and standings see them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Entrant:
    """One entrant. ``id`` is stable and opaque (the server's choice: letters, digits,
    ``-`` and ``_``, at most 64); ``name`` is for reading only and is in no computation.

    ``rating`` seeds an elimination bracket (None sorts below every rating).
    ``computer_level`` names the computer's level when the computer plays.
    ``withdrew_after``: the last round this entrant was paired in before withdrawing
    (0 if before the first); Swiss and elimination pair them in no later round, and a
    round robin's later games are scored as forfeit losses (the schedule is fixed).
    """

    id: str
    name: str
    rating: float | None = None
    computer_level: str | None = None
    withdrew_after: int | None = None

    def active_in(self, round_no: int) -> bool:
        """Whether Swiss or elimination may pair this entrant in ``round_no``."""
        return self.withdrew_after is None or round_no <= self.withdrew_after
