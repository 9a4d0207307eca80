"""Errors of the use cases, each with the HTTP status the web layer answers with.

Messages are for players: they say what went wrong and what to do, and a
refused link says nothing about the game it claims to open. They are lazy
(``pbem.i18n.lazy_gettext``): the text is chosen when it is shown, in the
language of whoever reads it; ``english`` is for logs and audits.

Each is named for what went wrong (``InvalidInput``, ``NotAllowed``, ``Missing``,
``WrongState``), never after an HTTP exception of werkzeug's, so the web tier imports
both without an alias and no reader takes one for the other.
"""

from __future__ import annotations

from typing import Any

from babel.support import LazyProxy

from ...i18n import lazy_gettext as _l
from ...i18n import use_reader
from ...i18n.words import error_text
from .integrity import Flag


class ServiceError(Exception):
    status = 400
    #: Set on a refusal about a game whose log does not verify: its page shows the flag too.
    flag: Flag | None = None

    def __init__(self, message: Any) -> None:
        super().__init__(message)
        self.text = message

    @property
    def message(self) -> str:
        """The text in the current reader's language."""
        return str(self.text)

    @property
    def bad_link(self) -> bool:
        """Whether this is the refusal of a link that opens nothing (its page's heading
        says so; other refusals of a valid link say "Not allowed")."""
        return self.text is BAD_LINK

    @property
    def english(self) -> str:
        """The text for logs, audits and operators."""
        with use_reader("en"):
            return self.message

    def __str__(self) -> str:
        return self.message


class InvalidInput(ServiceError):
    status = 400


BAD_LINK = _l(
    "This link is not valid. It may have been replaced by a newer one: use the link "
    "in your latest email, or ask for your link again on the game's page."
)


class NotAllowed(ServiceError):
    status = 403

    def __init__(self, message: Any = BAD_LINK) -> None:
        super().__init__(message)


class Missing(ServiceError):
    status = 404


class WrongState(ServiceError):
    """The player acted on a position that is no longer current."""

    status = 409


class MoveRefused(ServiceError):
    """The rules (or the parser) refused the move; ``error`` carries the engine's code."""

    status = 422

    def __init__(self, error: Exception) -> None:
        super().__init__(LazyProxy(error_text, error, enable_cache=False))
        self.error = error


class RateLimited(ServiceError):
    status = 429


class Unavailable(ServiceError):
    """The database did not answer (``store.db.DatabaseUnavailable``)."""

    status = 503

    def __init__(self) -> None:
        super().__init__(
            _l(
                "The server lost its connection to the game's database for a moment. "
                "Try again in a minute: the game's page shows whether your last move "
                "went through."
            )
        )


class NotStarted(WrongState):
    def __init__(self) -> None:
        super().__init__(
            _l(
                "The game has not started yet: it is dealt as soon as both players "
                "have accepted it through their links."
            )
        )


class Frozen(WrongState):
    """The game's stored log does not verify (``integrity``): nothing more is logged in it."""

    def __init__(self, error: str, game_id: int | None = None) -> None:
        super().__init__(
            _l(
                "Nothing can be played in this game: its stored log does not verify, so the "
                "game is frozen until the server's operator has looked into it."
            )
        )
        self.error = error
        self.game_id = game_id
        self.flag = Flag(error)


def flagged(error: ServiceError, reason: str | None, shown: int | None = None) -> ServiceError:
    """``error`` with the flag of a game whose log does not verify (if ``reason``)."""
    if reason is not None and error.flag is None:
        error.flag = Flag(reason, shown)
    return error


MOVED_ON = _l("The game has moved on since you loaded this page: here is the current position.")
#: The same for a reply by mail, which loaded no page (``moves.submit_reply``).
MAIL_MOVED_ON = _l("This game has moved on since that mail was sent: here is the current position.")
MAIL_GAME_OVER = _l("This game is over: no more moves can be played.")
