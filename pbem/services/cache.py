"""A small per-process cache of replayed positions (never authoritative: invariant 1).

Keyed by (game id, hash of the last logged move), so a new move makes a new key
and a stale entry can never be served for a longer log.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ..engine import Match


class ReplayCache:
    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._items: OrderedDict[tuple[int, str], Match] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[int, str]) -> Match | None:
        with self._lock:
            match = self._items.get(key)
            if match is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return match

    def put(self, key: tuple[int, str], match: Match) -> None:
        if self._size <= 0:
            return
        with self._lock:
            self._items[key] = match
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
