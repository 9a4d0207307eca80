"""An event's format and rules (docs/record-format.md §10)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Format(StrEnum):
    """How an event pairs its players; the value is what the event record writes."""

    ROUND_ROBIN = "round-robin"
    DOUBLE_ROUND_ROBIN = "double-round-robin"
    SWISS = "swiss"
    ELIMINATION = "elimination"


#: The most rounds a Swiss event may have (a bound a record is read with).
MAX_SWISS_ROUNDS = 50
#: The most players an event may have (the record reader refuses more).
MAX_ENTRANTS = 1024


@dataclass(frozen=True, slots=True)
class EventRules:
    """What fixes an event's schedule: the format and, for Swiss only, the rounds.

    ``rated`` is carried so the record says whether the games counted for ratings; it
    changes no pairing.
    """

    format: Format
    rounds: int | None = None
    rated: bool = False

    def __post_init__(self) -> None:
        if self.format is Format.SWISS:
            if type(self.rounds) is not int or not 1 <= self.rounds <= MAX_SWISS_ROUNDS:
                raise ValueError(f"a Swiss event has 1 to {MAX_SWISS_ROUNDS} rounds")
        elif self.rounds is not None:
            raise ValueError("only a Swiss event sets its number of rounds")

    def to_json(self) -> dict[str, object]:
        return {"format": self.format.value, "rounds": self.rounds, "rated": self.rated}


def round_count(rules: EventRules, entrants: int) -> int:
    """How many rounds an event of ``entrants`` players has.

    Round robin: n - 1 for an even n, n for an odd one (each round one player has the
    bye); double: twice that. Swiss: as set. Elimination: ceil(log2 n), the rounds of
    the bracket (tie-break games are played inside their round).
    """
    if entrants < 2:
        return 0
    if rules.format is Format.SWISS:
        return rules.rounds or 0
    if rules.format is Format.ELIMINATION:
        return (entrants - 1).bit_length()
    once = entrants - 1 if entrants % 2 == 0 else entrants
    return 2 * once if rules.format is Format.DOUBLE_ROUND_ROBIN else once
