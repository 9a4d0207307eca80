"""The events benchmark runs: a 200-player Swiss event of seven rounds is paired in full.

How long a round takes is the benchmark's figure to print (``python -m
benchmarks.events``), not a timing for a test to assert: CPU time still varies with the
machine and the networkx release (the slowest of the seven rounds took 0.64 s on
2026-12-06 and 1.57 s on 2026-12-07 with networkx 3.6.1)."""

from __future__ import annotations

import pytest

from benchmarks.events import swiss_event


@pytest.mark.slow
def test_a_200_player_swiss_event_is_paired_in_full():
    record, times = swiss_event(200, 7)
    assert len(record.pairings) == 7 * 100
    assert len(times) == 7
