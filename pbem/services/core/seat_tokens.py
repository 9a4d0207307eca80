"""Seat links are capabilities (docs/architecture.md, invariant 6).

A token is an itsdangerous signature over (game, seat, key version), salted by
purpose so a token made for one use never opens another. Revoking a seat's
links bumps its key version; the token itself never changes meaning.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from functools import lru_cache

from itsdangerous import BadData, URLSafeSerializer

from ...redact import REPLY_TOKEN_SHAPE

SEAT_SALT = "pbem/seat-link/1"
#: A seat token is about 60 characters; anything much longer is not one.
MAX_SEAT_TOKEN = 200
REPLY_SALT = b"pbem/reply-address/1"
#: A mail's one-click unsubscribe link (RFC 8058): salted apart, so it opens no seat.
UNSUBSCRIBE_SALT = "pbem/unsubscribe/1"
#: ``<game>-<seat>-<move number>-<key version>-<mac>``: lowercase only, because mail
#: servers may fold the case of an address's local part.
REPLY_TOKEN = re.compile(rf"^{REPLY_TOKEN_SHAPE}$")
BOUNCE_SALT = b"pbem/bounce-address/1"
#: ``<outbox row id>-<mac>``, the local part's tail of a mail's return path (VERP):
#: lowercase, for mail servers that fold the case of a local part.
BOUNCE_TOKEN = re.compile(r"^([0-9]{1,12})-([a-z2-7]{16})$")


@dataclass(frozen=True, slots=True)
class ReplyClaim:
    """A reply address names the game, the seat, the move it answers and the key version."""

    public_id: str
    seat: int
    n: int
    key_version: int


@dataclass(frozen=True, slots=True)
class SeatClaim:
    """What a well-signed seat token says; still to be checked against the seat's key version."""

    public_id: str
    seat: int
    key_version: int


@dataclass(frozen=True, slots=True)
class UnsubscribeClaim:
    """What an unsubscribe link switches: one seat's mail (``public_id``, ``seat``), or the
    mail of a whole account that is no seat's (``player``: the daily digest)."""

    public_id: str | None = None
    seat: int | None = None
    player: str | None = None


class LinkSigner:
    def __init__(self, secret_key: str) -> None:
        self._seat = URLSafeSerializer(secret_key, salt=SEAT_SALT)
        self._unsubscribe = URLSafeSerializer(secret_key, salt=UNSUBSCRIBE_SALT)
        self._reply_key = hashlib.sha256(REPLY_SALT + secret_key.encode()).digest()
        self._bounce_key = hashlib.sha256(BOUNCE_SALT + secret_key.encode()).digest()
        # A token's meaning is a pure function of the key, so both directions are
        # kept: every move signs two links for its mails and opens its own twice.
        self.seat_token = lru_cache(maxsize=4096)(self.seat_token)  # type: ignore[method-assign]
        self._open_seat = lru_cache(maxsize=4096)(self._open_seat)  # type: ignore[method-assign]

    def _reply_mac(self, payload: str) -> str:
        digest = hmac.new(self._reply_key, payload.encode(), hashlib.sha256).digest()[:15]
        return base64.b32encode(digest).decode().lower()

    def reply_token(self, public_id: str, seat: int, n: int, key_version: int) -> str:
        """The token of a reply address: a reply to it plays move ``n`` for ``seat``."""
        payload = f"{public_id}-{seat}-{n}-{key_version}"
        return f"{payload}-{self._reply_mac(payload)}"

    def open_reply(self, token: str) -> ReplyClaim | None:
        match = REPLY_TOKEN.match(token.strip().lower())
        if match is None:
            return None
        public_id, seat, n, version, mac = match.groups()
        if not hmac.compare_digest(mac, self._reply_mac(f"{public_id}-{seat}-{n}-{version}")):
            return None
        return ReplyClaim(public_id, int(seat), int(n), int(version))

    def unsubscribe_token(self, claim: UnsubscribeClaim) -> str:
        """The token of a ``List-Unsubscribe`` link: it can only switch that mail to the
        digest or off, never open the game (a salt of its own)."""
        if claim.player is not None:
            return self._unsubscribe.dumps(["p", claim.player])
        return self._unsubscribe.dumps(["s", claim.public_id, claim.seat])

    def open_unsubscribe(self, token: str) -> UnsubscribeClaim | None:
        """The claim of a genuine unsubscribe token, or ``None`` for anything else."""
        if len(token) > MAX_SEAT_TOKEN:
            return None
        try:
            data = self._unsubscribe.loads(token)
        except BadData:
            return None
        if isinstance(data, list) and len(data) == 2 and data[0] == "p":
            return UnsubscribeClaim(player=data[1]) if isinstance(data[1], str) else None
        if (
            isinstance(data, list)
            and len(data) == 3
            and data[0] == "s"
            and isinstance(data[1], str)
            and data[2] in (0, 1)
            and not isinstance(data[2], bool)
        ):
            return UnsubscribeClaim(public_id=data[1], seat=data[2])
        return None

    def _bounce_mac(self, row_id: int) -> str:
        digest = hmac.new(self._bounce_key, str(row_id).encode(), hashlib.sha256).digest()[:10]
        return base64.b32encode(digest).decode().lower()

    def bounce_token(self, row_id: int) -> str:
        """The token of an outbox row's return path: a bounce to it is of that mail alone."""
        return f"{row_id}-{self._bounce_mac(row_id)}"

    def open_bounce(self, token: str) -> int | None:
        """The outbox row id of a genuine bounce token; None for a forged or malformed one."""
        match = BOUNCE_TOKEN.match(token.strip().lower())
        if match is None:
            return None
        row_id = int(match.group(1))
        if not hmac.compare_digest(match.group(2), self._bounce_mac(row_id)):
            return None
        return row_id

    def seat_token(self, public_id: str, seat: int, key_version: int) -> str:
        return self._seat.dumps([public_id, seat, key_version])

    def open_seat(self, token: str) -> SeatClaim | None:
        """The claim of a genuine token, or ``None`` for anything forged, altered or malformed."""
        if len(token) > MAX_SEAT_TOKEN:  # never a real one; and kept out of the cache
            return None
        return self._open_seat(token)

    def _open_seat(self, token: str) -> SeatClaim | None:
        try:
            data = self._seat.loads(token)
        except BadData:
            return None
        if (
            not isinstance(data, list)
            or len(data) != 3
            or not isinstance(data[0], str)
            or data[1] not in (0, 1)
            or not isinstance(data[2], int)
            or isinstance(data[1], bool)
        ):
            return None
        return SeatClaim(data[0], data[1], data[2])
