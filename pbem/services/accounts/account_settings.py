"""A player's own settings, applied to every seat of theirs: name, language, time zone,
how mail comes, and stopping the clock in every running game at once.

One seat's settings (``play.seat_settings``) are what a seat link may change; these are what the
signed-in player changes for all their games.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...i18n import lazy_gettext as _l
from ...store.models import Player
from ..core.access import Client, log_account_use
from ..core.env import Env
from ..core.errors import InvalidInput, NotAllowed
from ..core.identity import (
    checked_language,
    checked_name,
    checked_person_name,
    checked_timezone,
    seats_of,
)
from ..core.status import GameStatus
from ..play import seat_settings

#: A seat's mail modes, and for the whole account also: no mail but invitations.
MAIL_MODES = (*seat_settings.MAIL_MODES, "invitations")


def update_settings(
    env: Env,
    player_id: int,
    *,
    name: str | None = None,
    mail_mode: str | None = None,
    language: str | None = None,
    timezone: str | None = None,
    client: Client,
) -> list[str]:
    """Name, language, time zone, and how mail comes, for every seat of the player: only the
    fields the person changed (sent, and not what the account holds), so saving the form
    after changing the mail leaves each seat's own language and zone as they were. None: not
    sent. Returns the names of the fields changed."""
    if name is not None:
        name = checked_name(name, _l("Display name"))
    if mail_mode is not None and mail_mode not in MAIL_MODES:
        raise InvalidInput(
            _l("Choose how you want mail: every move, a daily digest, or only invitations.")
        )
    if language is not None:
        language = checked_language(language)
    if timezone is not None:
        timezone = checked_timezone(timezone)
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise NotAllowed()
        if name is not None and name != player.display_name:  # a name kept is not refused
            checked_person_name(name, _l("Display name"))
        asked = {
            "display_name": name,
            "mail_mode": mail_mode,
            "language": language,
            "timezone": timezone,
        }
        changed = {k: v for k, v in asked.items() if v is not None and v != getattr(player, k)}
        for field, value in changed.items():
            setattr(player, field, value)
        for seat in seats_of(session, player):
            for field, value in changed.items():
                if field == "display_name":
                    if seat.game.status != GameStatus.FINISHED:  # a finished game keeps its names
                        seat.name = value
                else:
                    setattr(seat, field, value)
        log_account_use(
            session, env, player, "settings", client, detail=" ".join(sorted(changed)) or None
        )
        return sorted(changed)


@dataclass(frozen=True, slots=True)
class AwayInGame:
    """Time away asked for in one running game, and what came of it (``seat_settings.Away``)."""

    opponent: str
    away: seat_settings.Away


def away_everywhere(env: Env, player_id: int, days: float, client: Client) -> list[AwayInGame]:
    """Stop the clock in every running game for ``days`` from now, or, in a game whose
    allowance lets through less, for that; a game already away until later keeps its end
    (time away only ever adds). What each game did."""
    with env.db.read() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise NotAllowed()
        running = [
            (
                env.links.seat_token(s.game.public_id, s.seat, s.key_version),
                s.game.seats[1 - s.seat].name,
            )
            for s in seats_of(session, player)
            if s.game.status == GameStatus.IN_PROGRESS
        ]
    return [
        AwayInGame(opponent, seat_settings.set_away(env, token, days, client, up_to_left=True))
        for token, opponent in running
    ]
