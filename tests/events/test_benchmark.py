"""The issue's goal: a 200-player Swiss round paired in under a second (CPU time, so a
busy machine does not fail it)."""

from __future__ import annotations

import pytest

from benchmarks.events import swiss_event


@pytest.mark.slow
def test_a_200_player_swiss_round_is_paired_in_under_a_second():
    record, times = swiss_event(200, 7)
    assert len(record.pairings) == 7 * 100
    assert max(times) < 1.0, times
