"""The one-click unsubscribe of every automatic mail (``List-Unsubscribe``, RFC 8058).

A mail to a seat switches that seat to the daily digest; the digest, mail to an address
rather than a seat, switches that account's digest off ("only invitations", the account
setting's own mode). The link's token is signed for this alone (``seat_tokens``): it
opens no game, names no address, and switching twice changes nothing more. A POST does
it with no cookie and no form token, as mail providers send it; a GET only shows what
the button will do (invariant 4).

The page also offers the link's other choices, each a POST with the same token and the
page's form token (``choose``): for a game, a mail on every turn again (the undo), the
digest, or no mail about it; for the digest, the digest again or a mail on every move.
The page speaks the seat's (or the account's) language, as the mail did.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from ...i18n import lazy_gettext as _l
from ...store import games as game_rows
from ...store import players as player_rows
from ..core.access import Client, log_account_use, log_game_access
from ..core.env import Env
from ..core.errors import BAD_LINK, InvalidInput, Missing
from ..core.identity import seats_of
from ..core.seat_tokens import UnsubscribeClaim
from ..play.seat_settings import MAIL_MODES
from .account_settings import MAIL_MODES as ACCOUNT_MAIL_MODES

#: What a seat's mail becomes: the daily digest, a mode every seat may choose.
SEAT_TO = "digest"
#: What the digest becomes: no mail but invitations, a mode the account settings offer.
DIGEST_TO = "invitations"
assert SEAT_TO in MAIL_MODES and DIGEST_TO in ACCOUNT_MAIL_MODES
#: The modes the page of a game's link offers; of the digest's link (an account's).
SEAT_CHOICES = ("each", SEAT_TO, DIGEST_TO)
PLAYER_CHOICES = ("each", "digest", DIGEST_TO)
assert set(SEAT_CHOICES) <= set(ACCOUNT_MAIL_MODES) and set(PLAYER_CHOICES) <= set(
    ACCOUNT_MAIL_MODES
)


@dataclass(frozen=True, slots=True)
class Unsubscribe:
    """What a link switches, as its page says: one game's mail (against ``opponent``) to
    the digest, or the daily digest off. ``done``: it is so already."""

    digest_off: bool
    opponent: str | None
    done: bool
    #: The mail mode now (the seat's, or the account's), and the page's language.
    mode: str = "each"
    language: str = "en"

    @property
    def choices(self) -> tuple[str, ...]:
        """The modes the page offers besides the one in force."""
        every = PLAYER_CHOICES if self.digest_off else SEAT_CHOICES
        return tuple(m for m in every if m != self.mode)


def _claim(env: Env, token: str) -> UnsubscribeClaim:
    claim = env.links.open_unsubscribe(token)
    if claim is None:
        raise Missing(BAD_LINK)
    return claim


def look(env: Env, token: str) -> Unsubscribe:
    """What the link would switch, changing nothing (the page of a GET)."""
    claim = _claim(env, token)
    with env.db.read() as session:
        return _apply(env, session, claim, None)


def unsubscribe(env: Env, token: str, client: Client) -> Unsubscribe:
    """Switch the mail the link names (the one-click POST); the access log records it."""
    claim = _claim(env, token)
    with env.db.write() as session:
        return _apply(env, session, claim, client)


def choose(env: Env, token: str, mode: str, client: Client) -> Unsubscribe:
    """Set the mail the link names to ``mode``, one of the page's choices (``InvalidInput``
    else): a game's seat, or the account and its seats on the digest or off it."""
    claim = _claim(env, token)
    allowed = PLAYER_CHOICES if claim.player is not None else SEAT_CHOICES
    if mode not in allowed:
        raise InvalidInput(
            _l("Choose how you want mail: every move, a daily digest, or only invitations.")
        )
    with env.db.write() as session:
        return _apply(env, session, claim, client, mode)


def _apply(
    env: Env,
    session: Session,
    claim: UnsubscribeClaim,
    client: Client | None,
    mode: str | None = None,
) -> Unsubscribe:
    """The one-click switch (``mode`` None) or a chosen mode; with no ``client``, only a
    look at what the link would do."""
    if claim.player is not None:
        player = player_rows.by_public_id(session, claim.player)
        if player is None or player.erased_at is not None:
            raise Missing(BAD_LINK)
        to = DIGEST_TO if mode is None else mode
        # the one-click takes the digest's seats off it; a choice moves the seats the
        # digest's link took off (or put on) the digest with the account
        moved = ("digest",) if mode is None else ("digest", DIGEST_TO)
        seats = [s for s in seats_of(session, player) if s.mail_mode in moved and s.mail_mode != to]
        done = player.mail_mode == to and not seats
        if client is not None and not done:
            player.mail_mode = to
            for seat in seats:
                seat.mail_mode = to
            log_account_use(session, env, player, "unsubscribe", client, detail=to)
        return Unsubscribe(True, None, done, player.mail_mode, player.language)
    game = game_rows.first_by_public_id(session, claim.public_id or "")
    if game is None or claim.seat is None or claim.seat >= len(game.seats):
        raise Missing(BAD_LINK)
    seat = game.seats[claim.seat]
    if mode is None:
        done = seat.mail_mode != "each"  # the digest already, or only invitations: less mail
        to = SEAT_TO
    else:
        done, to = seat.mail_mode == mode, mode
    if client is not None and not done:
        seat.mail_mode = to
        log_game_access(session, env, game, claim.seat, "unsubscribe", client, detail=to)
    opponent = game.seats[1 - claim.seat].name
    return Unsubscribe(False, opponent, done, seat.mail_mode, seat.language)
