"""Tournaments, pure: formats, pairings, standings, the event record and its check.

Like ``pbem.engine`` (which it builds on), this package does no I/O and imports no
server library: ``pbem verify`` recomputes an event's pairings and standings with the
same code the server paired it with, so a player can check that nothing was arranged.
"""

from .commitment import EVENT_SEED_BYTES, commit, derive, new_seed, shuffled, stream
from .entrants import Entrant
from .formats import EventRules, Format, round_count
from .pairing import Pairing, pair_round, round_finished, tie_breaks
from .record import EVENT_FORMAT, EventRecord, EventRecordError, is_event, parse, read_event
from .results import GameResult, from_match
from .standings import Cell, Crosstable, Standing, crosstable, standings
from .verify import EventVerification, verify_event

__all__ = [
    "EVENT_FORMAT",
    "EVENT_SEED_BYTES",
    "Cell",
    "Crosstable",
    "Entrant",
    "EventRecord",
    "EventRecordError",
    "EventRules",
    "EventVerification",
    "Format",
    "GameResult",
    "Pairing",
    "Standing",
    "commit",
    "crosstable",
    "derive",
    "from_match",
    "is_event",
    "new_seed",
    "pair_round",
    "parse",
    "read_event",
    "round_count",
    "round_finished",
    "shuffled",
    "standings",
    "stream",
    "tie_breaks",
    "verify_event",
]
