"""A seat's own settings: being away (the clock stops), how it wants its mail (and receipts of
its own moves), its language."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from babel.support import LazyProxy

from ...clock import as_utc, iso
from ...i18n import Reader, shown_duration
from ...i18n import lazy_gettext as _l
from ...store import seats as seat_rows
from ...store.models import Player, Vacation
from ...templating import when
from ..core.access import Client, log_account_use, log_game_access
from ..core.env import Env
from ..core.errors import InvalidInput, NotAllowed
from ..core.identity import checked_language, checked_timezone, follow_seat, seats_of
from ..core.lookup import authenticate
from .turns import MIN_AWAY_DAYS, away_reach

MAIL_MODES = ("each", "digest")
#: Receipts of a seat's own moves: of the moves made by replying to a mail (the default: a
#: player who mailed a move hears that it was read), of every move, or of none. The other
#: player's move is told in the "your turn" mail either way.
RECEIPTS = ("replies", "all", "none")


#: Less than this over an allowance is rounding, not a request for more.
_SLACK = timedelta(seconds=1)


@dataclass(frozen=True, slots=True)
class Away:
    """What a request for time away did."""

    until: datetime | None  #: when the seat's clock runs again; None: it runs now
    length: timedelta  #: from the request to ``until`` (none: zero)
    changed: bool  #: an absence was started or made longer
    cut: bool  #: the allowance let through less than was asked (``up_to_left``)


def set_away(
    env: Env, token: str, days: float, client: Client, *, up_to_left: bool = False
) -> Away:
    """Stop this seat's clock from now for ``days``, within the game's allowance.

    Time away only ever adds: a seat already away until later keeps that end, and one away
    until sooner has its absence made longer, so no deadline ever moves earlier. The
    allowance counts the time actually used (``turns.away_reach``). More than it lets
    through is refused, or with ``up_to_left`` cut to what it lets through.
    """
    if not (math.isfinite(days) and days > 0):
        raise InvalidInput(_l("Say for how many days you will be away."))
    now = env.clock.now()
    with env.db.write() as session:
        game, seat = authenticate(env, session, token, lock=True)
        reach = away_reach(game, seat, now)
        wanted = timedelta(days=min(days, game.vacation_days + 1))  # beyond: refused alike
        cut = wanted > reach + _SLACK
        if cut and not up_to_left:
            if reach < timedelta(days=MIN_AWAY_DAYS):
                raise InvalidInput(_l("No vacation days left in this game."))
            raise InvalidInput(
                _l(
                    "You can be away for at most %(time)s from now in this game (until %(when)s).",
                    time=LazyProxy(shown_duration, reach, enable_cache=False),
                    when=LazyProxy(when, now + reach, enable_cache=False),
                )
            )
        end = now + min(wanted, reach)
        current = next(
            (v for v in seat.vacations if as_utc(v.starts_at) <= now < as_utc(v.ends_at)), None
        )
        kept = as_utc(current.ends_at) if current is not None else None
        if (kept is not None and kept >= end) or end - now < timedelta(days=MIN_AWAY_DAYS):
            result = Away(kept, (kept or now) - now, False, cut)
        else:
            if current is not None:
                current.ends_at = end  # made longer, never shorter
            else:
                session.add(Vacation(seat_id=seat.id, starts_at=now, ends_at=end))
            result = Away(end, end - now, True, cut)
        log_game_access(
            session,
            env,
            game,
            seat.seat,
            "away",
            client,
            detail=f"{days:g} days asked, away until {iso(result.until) if result.until else '-'}",
            key_version=seat.key_version,
        )
        return result


def come_back(env: Env, token: str, client: Client) -> None:
    """End a current absence now; unused days stay available."""
    now = env.clock.now()
    with env.db.write() as session:
        game, seat = authenticate(env, session, token, lock=True)
        for v in seat.vacations:
            if as_utc(v.starts_at) <= now < as_utc(v.ends_at):
                v.ends_at = now
        log_game_access(session, env, game, seat.seat, "back", client, key_version=seat.key_version)


def set_mail_mode(
    env: Env, token: str, mode: str, client: Client, *, all_games: bool = False
) -> int:
    """A mail on every turn, or a daily digest; for this game or every game of this address."""
    if mode not in MAIL_MODES:
        raise InvalidInput(_l("Choose a mail on every turn, or one daily digest."))
    return _set_on_seats(env, token, client, "mail-mode", "mail_mode", mode, all_games)


def set_receipts(
    env: Env, token: str, receipts: str, client: Client, *, all_games: bool = False
) -> int:
    """Which of its own moves the seat gets a receipt of; for this game or every game of
    this address (and, for a signed-in player's later games, ``account_settings``)."""
    if receipts not in RECEIPTS:
        raise InvalidInput(_l("Choose receipts of the moves you mail, of every move, or of none."))
    return _set_on_seats(env, token, client, "receipts", "receipts", receipts, all_games)


def _set_on_seats(
    env: Env,
    token: str,
    client: Client,
    action: str,
    field: str,
    value: str,
    all_games: bool,
) -> int:
    """Set one seat setting on the link's seat, or on every seat of its address; the
    access log records it. Returns how many seats changed."""
    with env.db.write() as session:
        game, seat = authenticate(env, session, token)
        seats = seat_rows.with_address(session, seat.email) if all_games else [seat]
        for s in seats:
            setattr(s, field, value)
        log_game_access(
            session,
            env,
            game,
            seat.seat,
            action,
            client,
            detail=f"{value}{' (all games)' if all_games else ''}",
            key_version=seat.key_version,
        )
        return len(seats)


def set_player_receipts(env: Env, player_id: int, receipts: str, client: Client) -> int:
    """The signed-in player's receipts, in every game of theirs and the games they start later."""
    if receipts not in RECEIPTS:
        raise InvalidInput(_l("Choose receipts of the moves you mail, of every move, or of none."))
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise NotAllowed()
        player.receipts = receipts
        seats = seats_of(session, player)
        for seat in seats:
            seat.receipts = receipts
        log_account_use(session, env, player, "receipts", client)
        return len(seats)


def set_reader(env: Env, token: str, language: str, timezone: str, client: Client) -> Reader:
    """The language and time zone of this seat's pages and mails, from now on."""
    language, timezone = checked_language(language), checked_timezone(timezone)
    with env.db.write() as session:
        game, seat = authenticate(env, session, token)
        seat.language, seat.timezone = language, timezone
        follow_seat(session, seat)  # the account speaks as its latest chosen seat
        log_game_access(
            session,
            env,
            game,
            seat.seat,
            "language",
            client,
            detail=f"{language} {timezone}",
            key_version=seat.key_version,
        )
    return Reader(language, timezone)
