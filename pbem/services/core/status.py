"""A stored game's status: the engine's ``Status`` of a dealt match, and ``WAITING``.

A game created to wait for both players' random bytes is not dealt yet, so it has no
engine state; that one status is the services' own. The values are what the
``games.status`` column stores.
"""

from __future__ import annotations

from enum import StrEnum

from ...engine import Status


class GameStatus(StrEnum):
    """What ``games.status`` holds, named instead of spelled in each service."""

    WAITING = "waiting"  # not dealt: the players' random bytes are awaited
    IN_PROGRESS = Status.IN_PROGRESS.value
    FINISHED = Status.FINISHED.value
