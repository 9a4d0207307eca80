"""A small per-process cache of replayed games (never authoritative: invariant 1).

Keyed by game id; each value says which log it is of (its length and last chain
hash), and ``played.played`` checks that against the database before using it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .replayed import ReplayedLog


class ReplayCache:
    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._items: OrderedDict[int, ReplayedLog] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, game_id: int) -> ReplayedLog | None:
        with self._lock:
            played = self._items.get(game_id)
            if played is None:
                self.misses += 1
                return None
            self._items.move_to_end(game_id)
            self.hits += 1
            return played

    def put(self, game_id: int, played: ReplayedLog) -> None:
        if self._size <= 0:
            return
        with self._lock:
            self._items[game_id] = played
            self._items.move_to_end(game_id)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
