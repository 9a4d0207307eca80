"""The event record ``jaipur-event/1`` (docs/record-format.md §8): write and read strictly.

It holds what ``pbem verify`` needs to recompute the event: the rules, the entrants,
the commitment and (once the event ended) the seed, every round's pairings, each game's
id, final chain hash and result, and the standings the server published. Read with the
game record's strict JSON reader (no duplicate keys, bounded numbers and nesting) and
checked field by field: a file is hostile until read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.engine.record import RecordError

from .entrants import Entrant
from .formats import EventRules
from .pairing import Pairing
from .results import GameResult
from .standings import Standing

EVENT_FORMAT = "jaipur-event/1"
#: The most games (pairings) a record may hold.
MAX_PAIRINGS = 100_000


class EventRecordError(RecordError):
    """The data is not a readable event record (``pbem verify`` says NOT A RECORD)."""


@dataclass(frozen=True, slots=True)
class EventRecord:
    """An event as its record states it; ``seed`` is None while the event runs."""

    event_id: str
    name: str
    rules: EventRules
    created_at: str
    commitment: str
    seed: str | None
    entrants: tuple[Entrant, ...]
    pairings: tuple[Pairing, ...]
    results: tuple[GameResult, ...]
    standings: tuple[Standing, ...]

    @property
    def seed_bytes(self) -> bytes | None:
        return None if self.seed is None else bytes.fromhex(self.seed)

    def to_json(self) -> dict[str, Any]:
        """The record as JSON data: rounds in order, each with its pairings and results."""
        raise NotImplementedError

    def dumps(self) -> str:
        """The record as a file's text (UTF-8 JSON, one space indent, a final newline)."""
        raise NotImplementedError


def parse(data: str | bytes | dict[str, Any]) -> EventRecord:
    """An ``EventRecord`` from JSON text or data; ``EventRecordError`` if it is not one."""
    raise NotImplementedError


def read_event(path: str) -> EventRecord:
    """Read an event record file; ``EventRecordError`` for a missing or unreadable one."""
    raise NotImplementedError


def is_event(data: Any) -> bool:
    """Whether parsed JSON data says it is an event record (its ``format`` field)."""
    return isinstance(data, dict) and data.get("format") == EVENT_FORMAT
