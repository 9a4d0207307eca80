"""A small JSON API for bots and other clients, authenticated by the seat token.

``Authorization: Bearer <seat token>`` (a bot account reaches the same views with its
own token under ``/api/bot/games/<game>/…``: ``bot_api.py``, docs/bots.md); a finished
game's analysis is open to anyone at ``/api/games/<id>/analysis``. The answers are
built from the seat's view, like the seat page; a move names the move number it expects
(``"n"``), exactly as the web form does. A move or preview the game has moved on
from is a 409 whose ``"position"`` is the seat's current position (as ``GET /api/seat``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, g, jsonify, request

from ..engine.views import view_to_json
from ..i18n import lazy_gettext as _l
from ..i18n.words import tell
from ..services.core.errors import InvalidInput, MoveRefused, NotAllowed, ServiceError, WrongState
from ..services.core.integrity import flag_json
from ..services.core.status import GameStatus
from ..services.play import game_pages, moves, new_games, seat_settings, turns
from ..services.records import analysis
from . import inputs
from .client import client
from .context import services

bp = Blueprint("api", __name__, url_prefix="/api")


def error_json(error: ServiceError) -> Any:
    body: dict[str, Any] = {"error": error.message, "status": error.status}
    if error.flag is not None:  # a game whose log does not verify: frozen, and why
        body["flagged"] = flag_json(error.flag)
    if isinstance(error, MoveRefused):
        body["code"] = getattr(error.error, "code", None)
        body["params"] = getattr(error.error, "params", {})
    fields = getattr(error, "fields", None)
    if fields:  # a JSON body's fields refused, each with why
        body["fields"] = {k: str(v) for k, v in fields.items()}
    position = getattr(error, "position", None)
    if position is not None:  # "the game has moved on: here is the current position"
        body["position"] = position
    return jsonify(body), error.status


def _or_position(token: str, call: Callable[[], Any]) -> Any:
    """``call()``; when the game has moved on (409), the refusal carries the seat's
    current position, as its words promise."""
    try:
        return call()
    except WrongState as exc:
        page = game_pages.seat_page(services(), token, client(), action="api-view")
        exc.position = _seat_json(page)  # type: ignore[attr-defined]
        raise


def _token() -> str:
    """The seat's token: the ``Authorization`` header's, or the bot's seat in the game
    the URL names (``bot_api.py``: the bot's own token was checked there)."""
    seat_token = g.get("pbem_seat_token")
    if seat_token is not None:
        return str(seat_token)
    header = request.headers.get("Authorization", "")[: inputs.MAX_SEGMENT + 16]
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or len(token) > inputs.MAX_SEGMENT:
        raise NotAllowed(_l("Send the seat token as 'Authorization: Bearer <token>'."))
    return token.strip()


def _body() -> dict[str, Any]:
    """The JSON object sent: at most 16 KB, nested at most 16 deep (``inputs.json_object``)."""
    return inputs.json_object()


def _n(data: dict[str, Any]) -> int:
    n = data.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= inputs.MAX_MOVE:
        raise InvalidInput(_l("'n' must be the number of the move you are making."))
    return n


def _string(data: dict[str, Any], name: str, limit: int = inputs.MAX_SHORT) -> str:
    """A string member of the body (a number is taken as its digits), bounded."""
    value = data.get(name, "")
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or len(value) > limit:
        raise InvalidInput(
            _l("'%(name)s' must be a text of at most %(limit)s characters.", name=name, limit=limit)
        )
    return value


@bp.get("/seat")
def seat() -> Any:
    token = _token()
    return jsonify(_seat_json(game_pages.seat_page(services(), token, client(), action="api-view")))


def _seat_json(page: game_pages.SeatPage | game_pages.WaitingPage) -> dict[str, Any]:
    """What ``GET /api/seat`` answers: the seat's view and the log, or the waiting game."""
    if isinstance(page, game_pages.WaitingPage):
        return {
            "game": page.game.public_id,
            "seat": page.seat,
            "status": GameStatus.WAITING.value,
            "players": list(page.game.names),
            "commitment": page.game.commitment,
            "accepted": page.accepted,
            "opponent_accepted": page.opponent_accepted,
            "computer": _computer_json(page.game, False),
        }
    flag = page.game.flag
    return {
        "game": page.game.public_id,
        "seat": page.seat,
        "players": list(page.game.names),
        "status": page.game.status,
        "commitment": page.game.commitment,
        "next_n": page.next_n,
        "your_turn": page.view.my_turn and flag is None,  # a frozen game has no turn
        # a game whose log does not verify: what broke, how far it does; null if sound
        "flagged": flag_json(flag) if flag is not None else None,
        "computer": _computer_json(page.game, page.thinking),
        "clock": _clock_json(page),
        "view": view_to_json(page.view),
        "moves": [
            {
                "n": e.n,
                "seat": e.seat,
                "move": e.move,
                "words": tell(e.words),
                "at": e.at.isoformat(),
                "hash": e.hash,
            }
            for e in page.entries
        ],
    }


def _clock_json(page: game_pages.SeatPage) -> dict[str, Any]:
    """The turn's deadline (null: none, or the game is over), when this seat's time away ends
    (null: it is not away) and the days of its allowance neither used nor planned."""
    clock = page.clock
    deadline = clock.deadline if clock is not None else None
    return {
        "deadline": deadline.isoformat() if deadline is not None else None,
        "away_until": page.away_until.isoformat() if page.away_until is not None else None,
        "away_days_left": round(page.vacation_left, 6),
    }


def _computer_json(game: game_pages.GameInfo, thinking: bool) -> dict[str, Any] | None:
    """A game against the computer: its seat, its level, and whether it is to move now
    (its move comes from the scheduler within seconds); null for a game between people."""
    if game.computer is None:
        return None
    seat, level = game.computer
    return {"seat": seat, "level": level, "thinking": thinking}


@bp.get("/seat/analysis")
def seat_analysis() -> Any:
    """The analysis of the seat's game once it is over (403 while it runs)."""
    return jsonify(analysis.seat_analysis(services(), _token(), client()).as_json())


@bp.get("/games/<public_id>/analysis")
def game_analysis(public_id: str) -> Any:
    """The analysis of a finished game, for anyone (403 while it runs, like its replay)."""
    return jsonify(analysis.public_analysis(services(), public_id[: inputs.MAX_SEGMENT]).as_json())


@bp.post("/seat/accept")
def accept() -> Any:
    """Accept a waiting game: ``{"entropy": "<32+ hex digits of your own random bytes>"}``."""
    data = _body()
    contribution = new_games.contribution_from(
        _string(data, "entropy"), _string(data, "phrase", inputs.MAX_TEXT) or None
    )
    dealt = new_games.accept(services(), _token(), contribution, client())
    return jsonify({"accepted": True, "dealt": dealt})


@bp.get("/seat/legal-moves")
def legal_moves() -> Any:
    return jsonify({"moves": game_pages.legal_moves(services(), _token(), client())})


@bp.post("/seat/preview")
def preview() -> Any:
    data, token = _body(), _token()
    result = _or_position(
        token,
        lambda: moves.preview_move(services(), token, _n(data), _string(data, "move"), client()),
    )
    return jsonify({"move": result.move, "words": tell(result.words)})


@bp.post("/seat/moves")
def move() -> Any:
    data, token = _body(), _token()
    done = _or_position(
        token,
        lambda: moves.submit_move(
            services(), token, _n(data), _string(data, "move"), client(), source="api"
        ),
    )
    return jsonify(
        {
            "n": done.n,
            "move": done.move,
            "hash": done.hash,
            "words": tell(done.words),
            "game_over": done.game_over,
            "to_move": done.to_move,
        }
    ), 201


def _days(data: dict[str, Any]) -> float:
    days = data.get("days")
    if (
        isinstance(days, bool)  # an int to Python, and no number of days
        or not isinstance(days, int | float)
        or not turns.MIN_AWAY_DAYS <= days <= inputs.MAX_DAYS  # false for nan
    ):
        raise InvalidInput(
            _l(
                "'days' must be a number of days from %(low)s to %(high)s.",
                low=turns.MIN_AWAY_DAYS,
                high=inputs.MAX_DAYS,
            )
        )
    return float(days)


@bp.post("/seat/away")
def away() -> Any:
    """Stop the seat's clock from now for ``{"days": <number>}``, within the game's allowance:
    time away only ever adds, so an absence that already runs longer stays (``"changed":
    false``); more than the allowance lets through is a 400 that says how much it does."""
    data, token = _body(), _token()
    done = seat_settings.set_away(services(), token, _days(data), client())
    until = done.until.isoformat() if done.until is not None else None
    return jsonify({"away_until": until, "changed": done.changed})


@bp.post("/seat/back")
def back() -> Any:
    """End the seat's time away now; the unused days stay available."""
    seat_settings.come_back(services(), _token(), client())
    return jsonify({"away_until": None})
