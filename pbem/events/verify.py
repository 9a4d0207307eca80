"""``verify_event``: an event record checked by recomputing it (docs/record-format.md §8.4).

The seed, the entrants, the rules and the game results fix every pairing and the
standings; the record's pairings and standings are claims about them, and each game
record given is checked with the engine's ``verify`` and against the event's chain hash
and result. What cannot be checked yet (a running event has not revealed its seed) is
said, not failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pbem.engine.record import Record
from pbem.engine.verify import Check

from .record import EventRecord


@dataclass(frozen=True, slots=True)
class EventVerification:
    checks: tuple[Check, ...]
    unchecked: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def first_failure(self) -> Check | None:
        return next((c for c in self.checks if not c.ok), None)


def verify_event(
    event: EventRecord | str | bytes | dict[str, Any], game_records: Sequence[Record] = ()
) -> EventVerification:
    """Every check the record allows: commitment, pairings round by round, results,
    standings, and each game record given. ``EventRecordError`` if ``event`` is not an
    event record at all."""
    raise NotImplementedError
