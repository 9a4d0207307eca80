"""Players: sign-in by one-time link, "my games", settings, a new address, erasure.

A player is an email address that has been proven by a sign-in link; they own
every seat with that address, past and future. Seat links keep working without
any account. Links are single use and short-lived, and only their SHA-256 is
stored; the answer to a sign-in request is the same whether the address is known.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from ..clock import as_utc
from ..engine import Termination
from ..i18n import LANGUAGES, Reader, known_timezone, reader, use_reader
from ..i18n import lazy_gettext as _l
from ..mail import compose, outbox
from ..store import outbox as outbox_store
from ..store import players as player_rows
from ..store.models import AccessLog, Player, SignInLink
from . import ratelimit
from .env import Env
from .errors import BadRequest, Forbidden, Frozen, NotFound
from .games import current_clock, turn_started
from .identity import EMAIL, checked_name, normal_email, player_for, seats_of
from .log import Client, log_rows, state_of

LINK_LIFETIME = timedelta(minutes=30)
MAIL_MODES = ("each", "digest", "invitations")


def _log(
    session: Session,
    env: Env,
    player: Player | None,
    action: str,
    client: Client,
    detail: str | None = None,
) -> None:
    session.add(
        AccessLog(
            game_id=None,
            player_id=player.id if player else None,
            seat=None,
            at=env.clock.now(),
            action=action,
            ip=(client.ip or "")[:64] or None,
            user_agent=(client.user_agent or "")[:300] or None,
            detail=detail,
        )
    )


# ------------------------------------------------------------------ sign-in links


def _issue(
    session: Session,
    env: Env,
    purpose: str,
    email: str,
    client: Client,
    player: Player | None = None,
    new_email: str | None = None,
) -> str:
    token = secrets.token_urlsafe(32)
    now = env.clock.now()
    session.add(
        SignInLink(
            token_hash=hashlib.sha256(token.encode()).hexdigest(),
            purpose=purpose,
            email=email,
            new_email=new_email,
            player_id=player.id if player else None,
            ip=client.ip,
            created_at=now,
            expires_at=now + LINK_LIFETIME,
        )
    )
    return token


def _may_mail(env: Env, email: str, client: Client) -> bool:
    """Whether a sign-in (or confirmation) mail may go to ``email`` now.

    Too many requests from one client is a 429; too many mails to one address
    are skipped quietly, so the answer says nothing about the address. Counted
    by ``ratelimit`` in its own short transaction, before the use case's own.
    """
    ratelimit.enforce(
        env,
        "sign_in_per_client",
        client.ip,
        _l("Too many sign-in requests from here; try again in a few minutes."),
    )
    return ratelimit.allowed(env, "sign_in_per_address", email)


def _mail(
    session: Session,
    env: Env,
    kind: str,
    to: str,
    subject: Any,
    player: Player | None,
    **context: Any,
) -> None:
    """A mail to a person: in their saved language, or the language they are browsing in."""
    chosen = reader() if player is None else Reader(player.language, player.timezone)
    with use_reader(chosen.language, chosen.timezone):
        text, html = compose.render(kind, now=env.clock.now(), **context)
        subject = str(subject)
    outbox_store.queue(
        session,
        outbox.message(
            now=env.clock.now(),
            mail_from=env.config.mail_from,
            kind=kind,
            to=to,
            subject=subject,
            text=text,
            html=html,
            language=chosen.language,
        ),
    )


def request_sign_in(env: Env, email: str, client: Client) -> None:
    """Mail a one-time sign-in link to ``email`` if it can play; the caller learns nothing."""
    key = normal_email(email)
    if not EMAIL.match(key) or len(key) > 254:
        raise BadRequest(_l("'%(email)s' does not look like an email address.", email=email))
    may_send = _may_mail(env, key, client)
    with env.db.write() as session:
        player = player_rows.by_email(session, key)
        _log(session, env, player, "sign-in-request", client, detail=key)
        if not may_send or (player is not None and player.erased_at is not None):
            return
        token = _issue(session, env, "sign-in", key, client, player)
        _mail(
            session,
            env,
            "sign_in",
            key,
            _l("Jaipur by mail — your sign-in link"),
            player,
            link=f"{env.config.base_url}/signin/{token}",
        )


def _link(session: Session, token: str, now: datetime, *, lock: bool = False) -> SignInLink:
    token_hash = hashlib.sha256(token.encode()).hexdigest()
    link = player_rows.link_by_hash(session, token_hash, lock=lock)
    if link is None or link.used_at is not None or as_utc(link.expires_at) <= now:
        raise Forbidden(
            _l(
                "This link is not valid any more: sign-in links work once, for 30 "
                "minutes. Ask for a new one."
            )
        )
    return link


def check_link(env: Env, token: str) -> SignInLink:
    """What a link would do (GET shows it; only a POST uses it)."""
    with env.db.read() as session:
        return _link(session, token, env.clock.now())


@dataclass(frozen=True, slots=True)
class SignedIn:
    player_id: int
    session_version: int
    #: The used link's id: the browser's session, which signing out ends on the server.
    session_id: int


def use_link(env: Env, token: str, client: Client) -> SignedIn:
    """Sign in (or confirm a new address) with a link, once: a second use is refused."""
    now = env.clock.now()
    with env.db.write() as session:
        link = _link(session, token, now, lock=True)
        if not player_rows.use_link(session, link.id, now):  # another request used it first
            raise Forbidden(_l("This link has been used already."))
        if link.purpose == "change-email":
            player = session.get(Player, link.player_id)
            assert player is not None and link.new_email is not None
            _move_address(session, player, link.new_email)
        else:
            player = player_for(session, link.email, link.email.split("@")[0], now)
        player.verified_at = player.verified_at or now
        link.player_id = player.id
        _log(
            session,
            env,
            player,
            "sign-in" if link.purpose == "sign-in" else "email-changed",
            client,
        )
        return SignedIn(player.id, player.session_version, link.id)


def _move_address(session: Session, player: Player, new_email: str) -> None:
    taken = player_rows.by_email(session, new_email)
    if taken is not None and taken.id != player.id:
        raise BadRequest(_l("That address belongs to another player already."))
    for seat in seats_of(session, player):
        seat.email = new_email
    player.email = new_email


@dataclass(frozen=True, slots=True)
class Header:
    """What a page's header shows of the signed-in player: plain values, no ORM object
    (a template never reads the database, nor a row detached from its session)."""

    public_id: str
    display_name: str


def signed_in_as(env: Env, player_id: Any, version: Any, session_id: Any = None) -> Header | None:
    """The header's view of a session's player (None when nobody is signed in)."""
    player = current(env, player_id, version, session_id)
    return None if player is None else Header(player.public_id, player.display_name)


def current(env: Env, player_id: Any, version: Any, session_id: Any = None) -> Player | None:
    """The signed-in player of a session, if the session is still valid.

    Valid means: the player's sessions have not all been ended ("sign out
    everywhere", erasure) and this one was not signed out, on the server.
    """
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (player_id, version)):
        return None
    if not isinstance(session_id, int) or isinstance(session_id, bool):
        return None
    with env.db.read() as session:
        found = player_rows.with_session(session, player_id, session_id)
        if found is None:
            return None
        player, signed_out_at = found
        if (
            signed_out_at is not None
            or player.erased_at is not None
            or player.session_version != version
        ):
            return None
        return player


def sign_out(env: Env, session_id: Any, client: Client) -> None:
    """End one browser's session on the server: its cookie, replayed, signs nobody in."""
    if not isinstance(session_id, int) or isinstance(session_id, bool):
        return
    with env.db.write() as session:
        link = session.get(SignInLink, session_id)
        if link is None or link.signed_out_at is not None:
            return
        link.signed_out_at = env.clock.now()
        player = session.get(Player, link.player_id) if link.player_id else None
        _log(session, env, player, "sign-out", client)


def sign_out_everywhere(env: Env, player_id: int, client: Client) -> None:
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is not None:
            player.session_version += 1
            _log(session, env, player, "sign-out-everywhere", client)


def request_email_change(env: Env, player_id: int, new_email: str, client: Client) -> None:
    """Mail the new address; the requester learns nothing about it either way.

    A free address gets a link that confirms the change. An address that belongs
    to another account gets a mail saying so, and what its owner can do; the
    page the requester sees is the same in both cases.
    """
    key = normal_email(new_email)
    if not EMAIL.match(key) or len(key) > 254:
        raise BadRequest(
            _l("'%(email)s' does not look like an email address.", email=new_email[:254])
        )
    with env.db.read() as session:
        player = session.get(Player, player_id)
        if player is not None and player.email == key:
            raise BadRequest(_l("That is your address already."))
    may_send = _may_mail(env, key, client)
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise Forbidden()
        _log(session, env, player, "email-change-request", client, detail=key)
        if not may_send:
            return
        owner = player_rows.by_email(session, key)
        if owner is not None:
            if owner.erased_at is None:
                _mail(
                    session,
                    env,
                    "address_taken",
                    key,
                    _l("Jaipur by mail — this address already has an account"),
                    owner,
                    name=owner.display_name,
                    signin=f"{env.config.base_url}/signin",
                )
            return
        token = _issue(session, env, "change-email", key, client, player, new_email=key)
        _mail(
            session,
            env,
            "change_email",
            key,
            _l("Jaipur by mail — confirm your new address"),
            player,
            link=f"{env.config.base_url}/signin/{token}",
            name=player.display_name,
        )


# ------------------------------------------------------------------ my games


@dataclass(frozen=True, slots=True)
class MyGame:
    public_id: str
    seat: int
    opponent: str
    status: str
    my_turn: bool
    moves: int
    last_move: str | None
    last_at: datetime
    deadline: datetime | None
    result: Any  # lazy text: "won 2–1 on time"
    link: str


@dataclass(frozen=True, slots=True)
class MyGames:
    player: Player
    my_turn: list[MyGame]
    waiting: list[MyGame]
    finished: list[MyGame]


#: What the list says of a game whose log does not verify (its pages say what broke).
FROZEN = _l("frozen: its stored log does not verify")


def _frozen(game: Any, seat: int, opponent: str, rows: list[Any], link: str) -> MyGame:
    """A game whose log does not verify, listed as such: no turn, no clock, no result."""
    return MyGame(
        game.public_id,
        seat,
        opponent,
        "frozen",
        False,
        len(rows),
        None,
        turn_started(game, rows),
        None,
        FROZEN,
        link,
    )


def my_games(env: Env, player_id: int) -> MyGames:
    """The player's games: waiting for their move first, then for the opponent, then done."""
    return _sorted_games(env, player_id, links=True)


def _sorted_games(env: Env, player_id: int, *, links: bool) -> MyGames:
    """``links``: with each seat's link (the player's own list); without, none is made."""
    now = env.clock.now()
    with env.db.read() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise Forbidden()
        out: list[MyGame] = []
        for seat in seats_of(session, player):
            game = seat.game
            rows = log_rows(session, game)
            token = (
                env.links.seat_token(game.public_id, seat.seat, seat.key_version) if links else None
            )
            url = env.seat_url(token) if token is not None else ""
            opponent = game.seats[1 - seat.seat].name
            if not game.dealt:
                out.append(
                    MyGame(
                        game.public_id,
                        seat.seat,
                        opponent,
                        "waiting",
                        seat.contribution is None,
                        0,
                        None,
                        as_utc(game.created_at),
                        None,
                        None,
                        url,
                    )
                )
                continue
            try:
                match = state_of(env, game, rows)
            except Frozen:
                out.append(_frozen(game, seat.seat, opponent, rows, url))
                continue
            clock = current_clock(game, rows, match, now)
            result = None
            outcome = match.outcome()
            if outcome is not None:
                won = outcome.winner == seat.seat
                score = dict(mine=outcome.seals[seat.seat], theirs=outcome.seals[1 - seat.seat])
                result = RESULTS[won, outcome.termination](**score)
            out.append(
                MyGame(
                    game.public_id,
                    seat.seat,
                    opponent,
                    match.status.value,
                    match.to_move == seat.seat,
                    len(rows),
                    rows[-1].move if rows else None,
                    turn_started(game, rows),
                    clock.deadline if clock else None,
                    result,
                    url,
                )
            )
        mine = sorted(
            (g for g in out if g.my_turn and g.status != "finished"),
            key=lambda g: (g.deadline or datetime.max.replace(tzinfo=now.tzinfo), g.last_at),
        )
        theirs = sorted(
            (g for g in out if not g.my_turn and g.status != "finished"),
            key=lambda g: g.last_at,
            reverse=True,
        )
        done = sorted(
            (g for g in out if g.status == "finished"), key=lambda g: g.last_at, reverse=True
        )
        return MyGames(player, mine, theirs, done)


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
            if seat.game.status != "finished":
                seat.name = name
        _log(session, env, player, "settings", client)


def away_everywhere(env: Env, player_id: int, days: float, client: Client) -> int:
    """Stop the clock in every running game (as far as each game's vacation days allow)."""
    from . import settings

    with env.db.read() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise Forbidden()
        tokens = [
            env.links.seat_token(s.game.public_id, s.seat, s.key_version)
            for s in seats_of(session, player)
            if s.game.status == "in_progress"
        ]
    stopped = 0
    for token in tokens:
        try:
            settings.set_away(env, token, days, client)
            stopped += 1
        except BadRequest:
            continue  # no vacation days left in that game
    return stopped


def erase(env: Env, player_id: int, client: Client) -> int:
    """Replace the player's name and address by a neutral label in every game.

    The move log stores seats, never people, so every record still verifies.
    """
    now = env.clock.now()
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise Forbidden()
        label = f"Erased player {player.public_id[:4]}"
        seats = seats_of(session, player)
        for seat in seats:
            seat.name, seat.email = label, f"erased-{player.public_id}@invalid"
            seat.key_version += 1  # old links die with the account
        player.display_name, player.email = label, f"erased-{player.public_id}@invalid"
        player.erased_at, player.session_version = now, player.session_version + 1
        _log(session, env, player, "erased", client)
        return len(seats)


#: A finished game's result as its player reads it, by (won or lost, how it ended).
RESULTS: dict[tuple[bool, Termination], Any] = {
    (True, Termination.SEALS): lambda **k: _l("won %(mine)s–%(theirs)s", **k),
    (False, Termination.SEALS): lambda **k: _l("lost %(mine)s–%(theirs)s", **k),
    (True, Termination.RESIGNATION): lambda **k: _l("won %(mine)s–%(theirs)s by resignation", **k),
    (False, Termination.RESIGNATION): lambda **k: _l(
        "lost %(mine)s–%(theirs)s by resignation", **k
    ),
    (True, Termination.CLAIM): lambda **k: _l("won %(mine)s–%(theirs)s on time", **k),
    (False, Termination.CLAIM): lambda **k: _l("lost %(mine)s–%(theirs)s on time", **k),
}

# ------------------------------------------------------------------ public pages


@dataclass(frozen=True, slots=True)
class PublicPlayer:
    """What a player's public page shows of them: no address, no settings."""

    public_id: str
    display_name: str
    rated_games: int
    rating_mu: float | None
    rating_sigma: float | None


@dataclass(frozen=True, slots=True)
class PublicGame:
    """A game as anyone may see it: no seat link, no last move, no deadline, no turn."""

    public_id: str
    opponent: str
    status: str
    moves: int
    result: Any  # lazy text, finished games only


@dataclass(frozen=True, slots=True)
class PlayerPage:
    player: PublicPlayer
    finished: list[PublicGame]
    running: list[PublicGame]


def _public(g: MyGame) -> PublicGame:
    return PublicGame(g.public_id, g.opponent, g.status, g.moves, g.result)


def public_player(env: Env, public_id: str) -> PlayerPage:
    """A player's public page: results of finished games, and running ones with nothing
    private. Built from public fields only: no seat link is made for it."""
    with env.db.read() as session:
        player = player_rows.by_public_id(session, public_id)
        if player is None or player.erased_at is not None:
            raise NotFound(_l("There is no such player."))
        shown = PublicPlayer(
            player.public_id,
            player.display_name,
            player.rated_games,
            player.rating_mu,
            player.rating_sigma,
        )
        player_id = player.id
    games = _sorted_games(env, player_id, links=False)
    return PlayerPage(
        shown,
        [_public(g) for g in games.finished],
        [_public(g) for g in (*games.my_turn, *games.waiting)],
    )
