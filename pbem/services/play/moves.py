"""Previewing and making moves (docs/architecture.md, invariant 3).

A move is: open the seat's key (a seat link, or a reply address), read the log,
replay it, let the engine check the move, INSERT it as ``n = last + 1`` with its
chain hash, queue the mails, commit. A racing duplicate fails on
``UNIQUE(game_id, n)`` (or, on PostgreSQL, waits on the game's row lock and then
sees the longer log) and gets "the game has moved on". Web, API, email replies
and the scheduler's timeouts all come through ``_append``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from ... import engine as jaipur
from ...clock import iso
from ...engine import Claim, MoveError, Resign, Timeout
from ...engine.explain import Account, narrate, preview
from ...i18n import lazy_gettext as _l
from ...i18n.notation import parse as parse_in
from ...store import games as game_rows
from ...store import move_log, wakeup
from ...store.models import Game, Seat
from ...store.move_log import LogRow, MovedOn
from ...store.players import is_bot_address
from ..core.access import Client, log_refusal, log_seat_use
from ..core.env import Env
from ..core.errors import (
    MAIL_GAME_OVER,
    MAIL_MOVED_ON,
    MOVED_ON,
    Frozen,
    MoveRefused,
    ServiceError,
    WrongState,
)
from ..core.integrity import keep_flag
from ..core.lookup import Key, authenticate, log_rows, open_claim, state_of
from ..core.replayed import position_digester, remember, replay_log
from ..core.seat_tokens import ReplyClaim
from ..core.status import GameStatus
from ..mailing import told
from . import notes, ratings

MESSAGE_LIMIT = notes.MESSAGE_LIMIT
#: How a move came in (``moves.source``): a person's (web, email, api, cli), the clock's
#: (timeout), the computer's (bot), which only the computer's seat may play, or an
#: event's (event: a withdrawn player's games resigned, a timeout's win claimed).
SOURCES = ("web", "email", "api", "cli", "timeout", "bot", "event")
Opener = Callable[[Session], tuple[Game, Seat]]


@dataclass(frozen=True, slots=True)
class MoveDone:
    n: int
    move: str
    hash: str
    words: Account
    game_over: bool
    to_move: int | None = None  # who moves next (None once the game is over)


@dataclass(frozen=True, slots=True)
class Preview:
    move: str
    words: Account


def _parse(text: str, language: str, match: jaipur.Match, seat: int) -> jaipur.Move:
    """The move typed in the seat's language (the canonical English notation always works).

    The seat's hand goes along, so "sell all leather" is read as the sale of every
    leather held, never of one.
    """
    try:
        return parse_in(text, language, match.round.hands[seat])
    except MoveError as exc:
        raise MoveRefused(exc) from None


def clean_message(text: str | None) -> str | None:
    """A note to the opponent: trimmed, at most 500 characters, or nothing."""
    text = " ".join((text or "").split())
    return text[:MESSAGE_LIMIT] or None


def reads_as_move(text: str, language: str, hand: Sequence[int] | None = None) -> bool:
    """Whether a line reads as a move in the seat's notation (legal or not)."""
    try:
        parse_in(text, language, hand)
    except MoveError:
        return False
    return True


def move_reader(env: Env, claim: ReplyClaim) -> Callable[[str], bool]:
    """``reads_as_move`` in the language (and with the hand) of the seat a reply opens."""
    language, hand = "en", None
    with env.db.read() as session:
        try:
            game, seat = open_claim(session, claim)
        except ServiceError:
            game = None
        if game is not None:
            language = seat.language
            if game.dealt:
                hand = replay_log(env, session, game).match.round.hands[seat.seat]
    return lambda text: reads_as_move(text, language, hand)


def preview_move(
    env: Env,
    token: str,
    expected_n: int,
    text: str,
    client: Client,
    *,
    language: str | None = None,
) -> Preview:
    """Say in words what a move would do, changing nothing but the access log. ``text`` is
    read in ``language`` (the page's, when its reader chose another), else the seat's."""
    try:
        with env.db.write() as session:
            game, seat = authenticate(env, session, token)
            log = replay_log(env, session, game)
            _check_frozen(game)
            if not log.answers(expected_n):
                raise WrongState(MOVED_ON)
            move = _parse(text, language or seat.language, log.match, seat.seat)
            _check_policy(game, seat, move, "web")
            try:
                words = preview(log.match, move, seat.seat)
            except MoveError as exc:
                raise MoveRefused(exc) from None
            log_seat_use(
                session, env, game, seat, "preview", client, seen_n=log.n, detail=str(move)
            )
            return Preview(str(move), words)
    except (MoveRefused, WrongState) as exc:
        if isinstance(exc, Frozen):
            keep_flag(env, exc.game_id, exc.error)  # found as this attempt read the log
        log_refusal(
            env,
            env.links.open_seat(token),
            "refused-preview",
            client,
            f"{text!r}: {exc.english}",
            expected_n - 1,
        )
        raise


def submit_move(
    env: Env,
    token: str,
    expected_n: int,
    text: str,
    client: Client,
    *,
    source: str = "web",
    message: str | None = None,
    language: str | None = None,
) -> MoveDone:
    """Record a move from a seat link; a refused move records nothing but the refusal.
    ``text`` is read in ``language`` (the page's), else the seat's, as ``preview_move``."""
    return _submit(
        env, env.links.open_seat(token), expected_n, text, client, source, message, language
    )


def submit_reply(
    env: Env, claim: ReplyClaim, text: str, message: str | None, client: Client
) -> MoveDone:
    """Record a move mailed to a reply address (the same checks as the web)."""
    return _submit(env, claim, claim.n, text, client, "email", message, None)


def _submit(
    env: Env,
    claim: Key | None,
    expected_n: int,
    text: str,
    client: Client,
    source: str,
    message: str | None,
    language: str | None,
) -> MoveDone:
    try:
        return _append(
            env,
            lambda s: open_claim(s, claim, lock=True),
            expected_n,
            client,
            source,
            lambda seat, match: _parse(text, language or seat.language, match, seat.seat),
            notes.note_for_opponent(env.config, message),
        )
    except (MoveRefused, WrongState) as exc:
        if source == "email" and exc.text is MOVED_ON:
            exc = WrongState(_by_mail(env, claim))
        log_refusal(env, claim, "refused", client, f"{text!r}: {exc.english}", expected_n - 1)
        raise exc from None


def _by_mail(env: Env, claim: Key | None) -> Any:
    """The game moved on, in a mail's words: a reply answers a mail, it loaded no page."""
    with env.db.read() as session:
        game = game_rows.by_public_id(session, claim.public_id) if claim else None
        over = game is not None and game.status == GameStatus.FINISHED
    return MAIL_GAME_OVER if over else MAIL_MOVED_ON


def resign(
    env: Env, token: str, expected_n: int, client: Client, *, source: str = "web"
) -> MoveDone:
    return _append(
        env,
        lambda s: authenticate(env, s, token, lock=True),
        expected_n,
        client,
        source,
        lambda _seat, _match: Resign(),
        None,
    )


def claim_win(
    env: Env, token: str, expected_n: int, client: Client, *, source: str = "web"
) -> MoveDone:
    """The waiting seat claims the win after the other seat's timeout (if the game allows it)."""
    return _append(
        env,
        lambda s: authenticate(env, s, token, lock=True),
        expected_n,
        client,
        source,
        lambda _seat, _match: Claim(),
        None,
    )


def record_timeout(env: Env, game_id: int, expected_n: int) -> MoveDone | None:
    """The scheduler logs that the seat to move let its deadline pass (once: UNIQUE n)."""

    def opener(session: Session) -> tuple[Game, Seat]:
        game = session.get(Game, game_id, with_for_update=True)
        assert game is not None
        match = state_of(env, game, log_rows(session, game))
        if match.to_move is None:
            raise WrongState(MOVED_ON)
        return game, game.seats[match.to_move]

    try:
        return _append(
            env,
            opener,
            expected_n,
            Client(user_agent="pbem scheduler"),
            "timeout",
            lambda _seat, _match: Timeout(),
            None,
        )
    except (WrongState, MoveRefused):
        return None  # the seat moved meanwhile, or the timeout is logged already


def play_computer(
    env: Env, game_id: int, expected_n: int, move: jaipur.Move, program: str
) -> MoveDone | None:
    """The scheduler logs the computer's move (``services/play/computer.py``), through the same
    checks as a person's, with the ``program`` that chose it (``pbem.ai.VERSION``: the log
    and the record name it); None when the game moved on meanwhile (another run played it)."""

    def opener(session: Session) -> tuple[Game, Seat]:
        game = session.get(Game, game_id, with_for_update=True)
        assert game is not None
        seat = next((s for s in game.seats if s.bot is not None), None)
        if seat is None:
            raise WrongState(MOVED_ON)
        return game, seat

    try:
        return _append(
            env,
            opener,
            expected_n,
            Client(user_agent="pbem computer"),
            "bot",
            lambda _seat, _match: move,
            None,
            program,
        )
    except WrongState:
        return None


def _check_frozen(game: Game) -> None:
    """Nothing is logged in a game whose log does not verify (``integrity``)."""
    if game.integrity_error is not None:
        raise Frozen(game.integrity_error, game.id)


def _check_policy(game: Game, seat: Seat, move: jaipur.Move, source: str) -> None:
    """What the game's settings and the log's authorship allow beyond the rules."""
    if source not in SOURCES:
        raise ValueError(f"unknown move source {source!r}")
    if (source == "bot") != (seat.bot is not None):
        raise ServiceError(_l("Only the computer plays the computer's seat, and only there."))
    if isinstance(move, Timeout) and source != "timeout":
        raise ServiceError(
            _l("Only the server's clock records a timeout, when a move's time runs out.")
        )
    if isinstance(move, Claim) and game.timeout_action != "claim":
        raise ServiceError(_l("In this game a timeout does not give a win: the game waits."))


def _append(
    env: Env,
    opener: Opener,
    expected_n: int,
    client: Client,
    source: str,
    make_move: Callable[[Seat, jaipur.Match], jaipur.Move],
    message: str | None,
    program: str | None = None,
) -> MoveDone:
    """Log one move through every check; ``program`` names what chose a computer's move."""
    now = env.clock.now()
    try:
        with move_log.appending(), env.db.write() as session:
            game, seat = opener(session)
            log = replay_log(env, session, game)
            _check_frozen(game)
            n = log.n + 1
            # the clock's own entry is exact; a player's stays valid across a timeout
            if expected_n != n if source == "timeout" else not log.answers(expected_n):
                raise WrongState(MOVED_ON)
            before = log.match
            move = make_move(seat, before)
            _check_policy(game, seat, move, source)
            try:
                after = before.apply(move, seat.seat)
            except MoveError as exc:
                raise MoveRefused(exc) from None
            words = narrate(before, move, seat.seat, log.names[seat.seat])
            entry = jaipur.log_move(
                log.last_hash, n, seat.seat, move, iso(now), after, position_digester(game)
            )
            # a move just logged is chained and its position digested (``log_move``)
            assert entry.hash is not None and entry.position is not None
            at = now.replace(microsecond=0)
            row = LogRow(n, seat.seat, entry.move, at, entry.hash, source, message, program)
            move_log.append(session, game.id, row, entry.position)
            if after.is_over:
                game.status, game.finished_at = GameStatus.FINISHED.value, now
                assert after.winner is not None
                ratings.rate(session, game, after.winner, now)
            action = {Resign: "resign", Claim: "claim", Timeout: "timeout"}.get(type(move), "move")
            log_seat_use(
                session,
                env,
                game,
                seat,
                action,
                client,
                seen_n=n - 1,
                detail=f"{entry.move} (via {source})",
            )
            grown = log.then(after, words, row)
            told.after_move(session, env, game, told.last_move(grown))
            if after.to_move is not None and game.seats[after.to_move].bot is not None:
                wakeup.computer_to_move(session)  # its move at once, not at the next run
            elif after.is_over:
                wakeup.game_over(session)  # its analysis at once (docs/analysis.md)
            if any(is_bot_address(s.email) for s in game.seats):
                wakeup.bots_told(session)  # a bot's stream tells it at once (docs/bots.md)
        remember(env, game.id, grown)  # only once it is committed
        return MoveDone(n, entry.move, entry.hash, words, after.is_over, after.to_move)
    except MovedOn:  # another move took this n, or held SQLite's lock past the timeout
        raise WrongState(MOVED_ON) from None
    except Frozen as exc:  # this transaction was rolled back: the flag is kept on its own
        keep_flag(env, exc.game_id, exc.error)
        raise
