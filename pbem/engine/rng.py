"""Randomness derived from a game's seed, exactly as docs/record-format.md §2 specifies.

Every draw is an HMAC-SHA256 stream keyed by the seed and named by a label, so
an auditor can re-deal any round in any language from the published seed, and
no draw depends on another (the labels are independent streams).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

RULES = "jaipur/1"
SEED_BYTES = 32
MIN_CONTRIBUTION_BYTES = 16
#: A browser's or a phrase's bytes are cut to this many (records refuse longer ones).
MAX_CONTRIBUTION_BYTES = 64


class Stream:
    """The byte stream ``HMAC(seed, f"{label}:{counter}")`` for counter = 0, 1, 2, …"""

    __slots__ = ("_buffer", "_counter", "_key", "_label")

    def __init__(self, seed: bytes, label: str) -> None:
        self._key = seed
        self._label = label
        self._counter = 0
        self._buffer = b""

    def read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = hmac.new(
                self._key, f"{self._label}:{self._counter}".encode("ascii"), hashlib.sha256
            ).digest()
            self._buffer += block
            self._counter += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling on 64-bit draws."""
        if n <= 0:
            raise ValueError("below(n) needs n >= 1")
        limit = 2**64 - (2**64 % n)
        while True:
            x = int.from_bytes(self.read(8), "big")
            if x < limit:
                return x % n


def shuffled(seed: bytes, items: Sequence[T], label: str) -> list[T]:
    """Fisher–Yates over one stream: ``for i = len-1 … 1: swap(i, below(i + 1))``."""
    out = list(items)
    stream = Stream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def first_player(seed: bytes) -> int:
    """The seat that starts round 1 when the players did not choose it."""
    return Stream(seed, f"{RULES}/first-player").below(2)


def round_label(round_number: int, what: str) -> str:
    return f"{RULES}/round/{round_number}/{what}"


def new_seed() -> bytes:
    """32 fresh bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """What both players see before the first move: ``sha256(seed)`` in hex."""
    return hashlib.sha256(seed).hexdigest()


def mix_seed(server_seed: bytes, contribution0: bytes, contribution1: bytes) -> bytes:
    """The game seed from the server's seed and each seat's own random bytes
    (docs/record-format.md §1.3)."""
    for contribution in (contribution0, contribution1):
        if len(contribution) < MIN_CONTRIBUTION_BYTES:
            raise ValueError(f"a seat's contribution needs {MIN_CONTRIBUTION_BYTES} bytes or more")
    message = f"{RULES}/mix:{contribution0.hex()}:{contribution1.hex()}".encode("ascii")
    return hmac.new(server_seed, message, hashlib.sha256).digest()
