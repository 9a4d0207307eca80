"""The events every test of tests/events may share: played once per module."""

from __future__ import annotations

import pytest

from pbem.events import EventRules, Format
from tests.events.play import Played, people, run_event


@pytest.fixture(scope="module")
def round_robin() -> Played:
    return run_event(EventRules(Format.ROUND_ROBIN), people(5, {4: 3}))


@pytest.fixture(scope="module")
def swiss() -> Played:
    # a bye each round, a game with no winner, a player who withdraws after round 2
    return run_event(EventRules(Format.SWISS, 3), people(7, {2: 2}), no_winner={(2, 1, 1)})


@pytest.fixture(scope="module")
def elimination() -> Played:
    return run_event(EventRules(Format.ELIMINATION), people(6), no_winner={(1, 2, 1)})


@pytest.fixture(params=["round_robin", "swiss", "elimination"])
def event(request) -> Played:
    return request.getfixturevalue(request.param)
