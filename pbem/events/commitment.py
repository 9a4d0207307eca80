"""The event's seed: committed when the event is created, revealed when it ends (or is
cancelled before it starts).

The same scheme as a game's deal (docs/record-format.md §1–§2): ``sha256(seed)`` is the
commitment, and each seeded choice reads its own HMAC-SHA256 stream of the seed, named
by a label ``jaipur-event/1/<purpose>/<round>``, so no choice depends on another.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pbem.engine import rng

T = TypeVar("T")

EVENT_SEED_BYTES = rng.SEED_BYTES
LABEL = "jaipur-event/1"


def new_seed() -> bytes:
    """32 fresh bytes from the operating system's CSPRNG."""
    return rng.new_seed()


def commit(seed: bytes) -> str:
    """The commitment published when the event is created: ``sha256(seed)`` in hex."""
    return rng.commitment(seed)


def label(purpose: str, round_no: int) -> str:
    return f"{LABEL}/{purpose}/{round_no}"


def stream(seed: bytes, purpose: str, round_no: int) -> rng.Stream:
    """The stream for one purpose in one round (round 0: the whole event)."""
    return rng.Stream(seed, label(purpose, round_no))


def derive(seed: bytes, purpose: str, round_no: int, n: int) -> int:
    """A uniform integer in ``[0, n)``: the first draw of ``stream(seed, purpose, round)``."""
    return stream(seed, purpose, round_no).below(n)


def shuffled(seed: bytes, items: Sequence[T], purpose: str, round_no: int) -> list[T]:
    """``items`` in the order of a Fisher–Yates shuffle read from the purpose's stream."""
    return rng.shuffled(seed, items, label(purpose, round_no))
