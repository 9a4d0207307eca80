"""An event's own mails (the games' mails are the games'): a round's bye, the final standings,
the cancellation of an event that did not start.

Each is written in the player's saved language (``accounts.sign_in_links.mail``); the
names in them are the players' own, autoescaped in the HTML part (invariant 9).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from ...i18n import lazy_gettext as _l
from ...store.models import Event, EventEntrant, Player
from ..accounts.sign_in_links import mail
from ..core.env import Env
from . import draw


def bye(session: Session, env: Env, event: Event, entrant: EventEntrant, round_no: int) -> None:
    """The round mail of a player without a game this round (a bye: a win, no game)."""
    if entrant.player_id is None:
        return
    player = session.get(Player, entrant.player_id)
    if player is None or player.erased_at is not None:
        return
    mail(
        session,
        env,
        "event_bye",
        player.email,
        _l("%(event)s, round %(round)s: a bye", event=event.name, round=round_no),
        player,
        event=event.name,
        round_no=round_no,
        event_url=env.event_url(event.public_id),
    )


def final(
    session: Session, env: Env, event: Event, player: Player, table: Sequence[draw.Row]
) -> None:
    """The final standings, with the seed now shown, to one player."""
    mail(
        session,
        env,
        "event_over",
        player.email,
        _l("%(event)s is over: the final standings", event=event.name),
        player,
        event=event.name,
        rows=list(table),
        seed=event.seed,
        commitment=event.commitment,
        event_url=env.event_url(event.public_id),
    )


def cancelled(session: Session, env: Env, event: Event, player: Player) -> None:
    """To a player who joined an event cancelled at its start (fewer than two players) or
    by its organiser before it started (``event.cancelled_by``)."""
    if player.erased_at is not None:
        return
    mail(
        session,
        env,
        "event_cancelled",
        player.email,
        _l("%(event)s is cancelled", event=event.name),
        player,
        event=event.name,
        event_url=env.event_url(event.public_id),
        by_organiser=event.cancelled_by == "organiser",
    )
