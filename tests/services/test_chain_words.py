"""One chain check: a stored log read by the server and a record read by ``pbem verify``
break at the same entry for the same reason, in the same words (the server's flag is
the engine's ``chain`` check, named as ``verify`` names it)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from pbem.clock import iso
from pbem.engine import chain_hash, verify_chain
from pbem.engine.record import LoggedMove
from pbem.services.core.integrity import chain_prefix

START = "ab" * 32
AT = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


def _entries() -> list[LoggedMove]:
    out, previous = [], START
    for n, (seat, move) in enumerate([(0, "take leather"), (1, "take diamond")], start=1):
        at = iso(AT)
        previous = chain_hash(previous, n, seat, move, at)
        out.append(LoggedMove(n=n, move=move, seat=seat, at=at, hash=previous))
    return out


def _row(entry: LoggedMove) -> SimpleNamespace:
    """The entry as the move log's row holds it (its time a datetime)."""
    at = None if entry.at is None else datetime.fromisoformat(entry.at.replace("Z", "+00:00"))
    return SimpleNamespace(n=entry.n, seat=entry.seat, move=entry.move, at=at, hash=entry.hash)


BREAKS = {
    "intact": lambda e: e,
    "renumbered": lambda e: replace(e, n=5),
    "no hash": lambda e: replace(e, hash=None),
    "empty hash": lambda e: replace(e, hash=""),
    "no seat": lambda e: replace(e, seat=None),
    "seat out of range": lambda e: replace(e, seat=2),
    "no time": lambda e: replace(e, at=None),
    "altered move": lambda e: replace(e, move="take silver"),
    "altered hash": lambda e: replace(e, hash="cd" * 32),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_the_server_and_verify_find_the_same_break_in_the_same_words(name: str) -> None:
    entries = _entries()
    entries[1] = BREAKS[name](entries[1])
    broken, why = verify_chain(START, entries)
    shown, flagged = chain_prefix(START, [_row(e) for e in entries])
    if broken is None:
        assert (shown, flagged) == (2, None)
    else:
        assert shown == 1
        assert flagged == f"chain: {why}"
