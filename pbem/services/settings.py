"""A seat's own settings: being away (the clock stops), how it wants its mail (and receipts of
its own moves), its language."""

from __future__ import annotations

from datetime import timedelta

from ..clock import as_utc
from ..i18n import Reader
from ..i18n import lazy_gettext as _l
from ..i18n import lazy_ngettext as _ln
from ..store import seats as seat_rows
from ..store.models import Player, Vacation
from .env import Env
from .errors import BadRequest, Forbidden
from .games import vacation_left
from .identity import checked_language, checked_timezone, seats_of
from .log import Client, authenticate, record_access
from .players import note_access

MAIL_MODES = ("each", "digest")
#: Receipts of a seat's own moves: of the moves made by replying to a mail (the default: a
#: player who mailed a move hears that it was read), of every move, or of none. The other
#: player's move is told in the "your turn" mail either way.
RECEIPTS = ("replies", "all", "none")


#: The shortest time away stored (the forms' least): less left of an allowance is none.
MIN_AWAY_DAYS = 0.01


def set_away(
    env: Env, token: str, days: float, client: Client, *, up_to_left: bool = False
) -> float:
    """Stop this seat's clock from now for ``days`` (within the game's vacation allowance);
    returns the days stopped.

    More days than are left are refused, or with ``up_to_left`` cut to those left (none
    left: nothing is stored, and 0 returned).
    """
    now = env.clock.now()
    with env.db.write() as session:
        game, seat = authenticate(env, session, token, lock=True)
        left = vacation_left(game, seat)
        if up_to_left:
            days = min(days, left)
            if days < MIN_AWAY_DAYS:
                return 0.0
        if not 0 < days <= left + 1e-9:
            raise BadRequest(
                _ln(
                    "You can be away for up to %(num)s more day in this game.",
                    "You can be away for up to %(num)s more days in this game.",
                    float(f"{left:g}"),  # the form of the number as it is shown
                    num=f"{left:g}",
                )
            )
        for v in seat.vacations:  # end a current absence before starting the new one
            if as_utc(v.starts_at) <= now < as_utc(v.ends_at):
                v.ends_at = now
        session.add(Vacation(seat_id=seat.id, starts_at=now, ends_at=now + timedelta(days=days)))
        record_access(
            session,
            env,
            game,
            seat.seat,
            "away",
            client,
            detail=f"{days:g} days",
            key_version=seat.key_version,
        )
        return days


def come_back(env: Env, token: str, client: Client) -> None:
    """End a current absence now; unused days stay available."""
    now = env.clock.now()
    with env.db.write() as session:
        game, seat = authenticate(env, session, token, lock=True)
        for v in seat.vacations:
            if as_utc(v.starts_at) <= now < as_utc(v.ends_at):
                v.ends_at = now
        record_access(session, env, game, seat.seat, "back", client, key_version=seat.key_version)


def set_mail_mode(
    env: Env, token: str, mode: str, client: Client, *, all_games: bool = False
) -> int:
    """A mail on every turn, or a daily digest; for this game or every game of this address."""
    if mode not in MAIL_MODES:
        raise BadRequest(_l("Choose a mail on every turn, or one daily digest."))
    return _set_on_seats(env, token, client, "mail-mode", "mail_mode", mode, all_games)


def set_receipts(
    env: Env, token: str, receipts: str, client: Client, *, all_games: bool = False
) -> int:
    """Which of its own moves the seat gets a receipt of; for this game or every game of
    this address (and, for a signed-in player's later games, ``account_settings``)."""
    if receipts not in RECEIPTS:
        raise BadRequest(_l("Choose receipts of the moves you mail, of every move, or of none."))
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
        record_access(
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
        raise BadRequest(_l("Choose receipts of the moves you mail, of every move, or of none."))
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise Forbidden()
        player.receipts = receipts
        seats = seats_of(session, player)
        for seat in seats:
            seat.receipts = receipts
        note_access(session, env, player, "receipts", client)
        return len(seats)


def set_reader(env: Env, token: str, language: str, timezone: str, client: Client) -> Reader:
    """The language and time zone of this seat's pages and mails, from now on."""
    language, timezone = checked_language(language), checked_timezone(timezone)
    with env.db.write() as session:
        game, seat = authenticate(env, session, token)
        seat.language, seat.timezone = language, timezone
        record_access(
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
