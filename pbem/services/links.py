"""Seat links are capabilities (DESIGN.md invariant 6).

A token is an itsdangerous signature over (game, seat, key version), salted by
purpose so a token made for one use never opens another. Revoking a seat's
links bumps its key version; the token itself never changes meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from itsdangerous import BadData, URLSafeSerializer

SEAT_SALT = "pbem/seat-link/1"


@dataclass(frozen=True, slots=True)
class SeatClaim:
    """What a well-signed seat token says; still to be checked against the seat's key version."""

    public_id: str
    seat: int
    key_version: int


class LinkSigner:
    def __init__(self, secret_key: str) -> None:
        self._seat = URLSafeSerializer(secret_key, salt=SEAT_SALT)

    def seat_token(self, public_id: str, seat: int, key_version: int) -> str:
        return self._seat.dumps([public_id, seat, key_version])

    def open_seat(self, token: str) -> SeatClaim | None:
        """The claim of a genuine token, or ``None`` for anything forged, altered or malformed."""
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
