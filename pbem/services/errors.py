"""Errors of the use cases, each with the HTTP status the web layer answers with.

Messages are for players: they say what went wrong and what to do, and a
refused link says nothing about the game it claims to open.
"""

from __future__ import annotations


class ServiceError(Exception):
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(ServiceError):
    status = 400


BAD_LINK = (
    "This link is not valid. It may have been replaced by a newer one: use the link "
    "in your latest email, or ask for your link again on the game's page."
)


class Forbidden(ServiceError):
    status = 403

    def __init__(self, message: str = BAD_LINK) -> None:
        super().__init__(message)


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    """The player acted on a position that is no longer current."""

    status = 409


class MoveRefused(ServiceError):
    """The rules (or the parser) refused the move; ``error`` carries the engine's code."""

    status = 422

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class RateLimited(ServiceError):
    status = 429


class NotStarted(Conflict):
    def __init__(self) -> None:
        super().__init__(
            "The game has not started yet: it is dealt as soon as both players "
            "have accepted it through their links."
        )


MOVED_ON = "The game has moved on since you loaded this page: here is the current position."
