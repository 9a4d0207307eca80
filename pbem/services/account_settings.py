"""A player's own settings, applied to every seat of theirs: name, language, time zone,
how mail comes, and stopping the clock in every running game at once.

One seat's settings (``settings``) are what a seat link may change; these are what the
signed-in player changes for all their games.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import LANGUAGES, known_timezone
from ..i18n import lazy_gettext as _l
from ..store.models import Player
from . import settings
from .env import Env
from .errors import BadRequest, Forbidden
from .identity import checked_name, seats_of
from .log import Client
from .players import note_access
from .status import GameStatus

MAIL_MODES = ("each", "digest", "invitations")


def update_settings(
    env: Env,
    player_id: int,
    *,
    name: str,
    mail_mode: str,
    language: str,
    timezone: str,
    client: Client,
) -> None:
    """Name, language, time zone, and how mail comes: applied to every seat of the player."""
    name = checked_name(name, _l("Display name"))
    if mail_mode not in MAIL_MODES:
        raise BadRequest(
            _l("Choose how you want mail: every move, a daily digest, or only invitations.")
        )
    if language not in LANGUAGES:
        raise BadRequest(_l("Choose one of the languages offered."))
    if known_timezone(timezone) != timezone:
        raise BadRequest(_l("'%(zone)s' is not a time zone.", zone=timezone[:64]))
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise Forbidden()
        player.display_name, player.mail_mode = name, mail_mode
        player.language, player.timezone = language, timezone
        for seat in seats_of(session, player):
            seat.mail_mode = mail_mode
            seat.language, seat.timezone = language, timezone
            if seat.game.status != GameStatus.FINISHED:
                seat.name = name
        note_access(session, env, player, "settings", client)


@dataclass(frozen=True, slots=True)
class AwayInGame:
    """Time away asked for in one running game, and what came of it (``settings.Away``)."""

    opponent: str
    away: settings.Away


def away_everywhere(env: Env, player_id: int, days: float, client: Client) -> list[AwayInGame]:
    """Stop the clock in every running game for ``days`` from now, or, in a game whose
    allowance lets through less, for that; a game already away until later keeps its end
    (time away only ever adds). What each game did."""
    with env.db.read() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise Forbidden()
        running = [
            (
                env.links.seat_token(s.game.public_id, s.seat, s.key_version),
                s.game.seats[1 - s.seat].name,
            )
            for s in seats_of(session, player)
            if s.game.status == GameStatus.IN_PROGRESS
        ]
    return [
        AwayInGame(opponent, settings.set_away(env, token, days, client, up_to_left=True))
        for token, opponent in running
    ]
