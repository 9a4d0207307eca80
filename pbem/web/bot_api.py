"""The bot accounts' API (docs/bots.md): ``Authorization: Bearer <bot token>``.

A bot plays its seats through the seat API's own views (``api.py``), each under
``/api/bot/games/<game>/…``: the bot's token names the bot, the game names the seat (the
one with the bot's address; none is a 403), and the view runs with that seat's token.
Its turns come as events: a long poll (``/api/bot/events``) or server-sent events
(``/api/bot/stream``), both woken by ``store/wakeup.py`` as the computer is.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, g, jsonify, request

from ..i18n import lazy_gettext as _l
from ..services.accounts import bots
from ..services.core import limits
from ..services.core.errors import InvalidInput, NotAllowed
from ..services.play import challenges, game_clock
from . import api, inputs
from .client import client
from .context import services

bp = Blueprint("bot_api", __name__, url_prefix="/api/bot")

#: Seconds between two keep-alive comments of a stream (proxies close a silent one).
KEEPALIVE = 15.0


def _bearer() -> str:
    header = request.headers.get("Authorization", "")[: inputs.MAX_SEGMENT + 16]
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or len(token) > inputs.MAX_SEGMENT:
        raise NotAllowed(bots.BAD_TOKEN)
    return token.strip()


def _bot() -> bots.Bot:
    return bots.authenticate(services(), _bearer())


def _as_seat(view: Callable[[], Any]) -> Callable[[str], Any]:
    """The seat API's ``view`` for the bot's seat in ``game``."""

    def run(game: str) -> Any:
        g.pbem_seat_token = bots.seat_token(services(), _bot(), game)
        return view()

    run.__name__ = f"bot_{view.__name__}"
    run.__doc__ = view.__doc__
    return run


for rule, view, methods in (
    ("seat", api.seat, ["GET"]),
    ("legal-moves", api.legal_moves, ["GET"]),
    ("accept", api.accept, ["POST"]),
    ("preview", api.preview, ["POST"]),
    ("moves", api.move, ["POST"]),
    ("analysis", api.seat_analysis, ["GET"]),
):
    bp.add_url_rule(f"/games/<game>/{rule}", view_func=_as_seat(view), methods=methods)


@bp.get("/account")
def account() -> Any:
    bot = _bot()
    return jsonify({"id": bot.public_id, "name": bot.name, "address": bot.address, "bot": True})


@bp.get("/challenges")
def challenge_list() -> Any:
    bot = _bot()
    return jsonify(
        {
            "challenges": [
                {
                    "id": c.public_id,
                    "by": str(c.by),
                    "days_per_move": c.days_per_move,
                    "starter": c.starter,
                    "mine": c.mine,
                }
                for c in challenges.open_list(services(), bot.id)
            ]
        }
    )


@bp.post("/challenges")
def challenge_post() -> Any:
    """Post an open challenge: ``{"days_per_move": 3, "starter": "random"}`` (both optional);
    the same limit as a person's (``challenges_per_client``)."""
    bot, data = _bot(), inputs.json_object()
    days = data.get("days_per_move", game_clock.GameClock().days_per_move)
    if days is not None and (isinstance(days, bool) or not isinstance(days, int)):
        raise InvalidInput(_l("'days_per_move' must be a whole number of days, or null."))
    public_id = challenges.post(
        services(),
        bot.id,
        days_per_move=days,
        starter=api._string(data, "starter") or "random",
        note=None,
        client=client(),
    )
    return jsonify({"challenge": public_id}), 201


@bp.post("/challenges/<challenge_id>/accept")
def challenge_accept(challenge_id: str) -> Any:
    """Take an open challenge: the game waits for both players' ``accept``."""
    bot = _bot()
    game = challenges.accept(services(), challenge_id, bot.id, None, client=client())
    return jsonify({"game": game}), 201


#: Seconds a bot is asked to wait when every waiting slot of this process is taken.
BUSY_RETRY = 5
BUSY = _l("Too many bots are waiting for events here; try again in a few seconds.")


def _slot() -> Callable[[], None]:
    """One of this process's ``config.bot_waits`` slots for a waiting request (each holds a
    thread of the worker: the pages keep the others), and how to give it back; none
    free is a 429 with ``Retry-After``."""
    wanted = services().config.bot_waits
    slots = current_app.extensions.setdefault(
        "pbem_bot_waits", threading.BoundedSemaphore(max(wanted, 1))
    )
    if wanted <= 0 or not slots.acquire(blocking=False):
        raise limits.TooMany(BUSY, BUSY_RETRY)
    return slots.release


def _after(raw: str | None) -> int | None:
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 18:
        raise InvalidInput(_l("'after' must be the 'last' of an earlier answer."))
    return int(raw)


@bp.get("/events")
def events() -> Any:
    """Long polling: ``?after=<last>&wait=<seconds, at most 30>``; answers as soon as there
    is something to tell, else with no events when the wait is over."""
    bot = _bot()
    after = _after(request.args.get("after"))
    wait = inputs.number(request.args, "wait", default=0, low=0, high=bots.MAX_WAIT, label="wait")
    if wait == 0:  # answered at once: holds no slot
        batch = bots.pending(services(), bot, after)
        return jsonify({"events": batch.events, "last": batch.last})
    release = _slot()
    try:
        batch = bots.wait_for(services(), bot, after, float(wait))
    finally:
        release()
    return jsonify({"events": batch.events, "last": batch.last})


def _sse(event: dict[str, Any]) -> str:
    lines = [f"event: {event['type']}"]
    if "id" in event:
        lines.append(f"id: {event['id']}")
    lines.append("data: " + json.dumps(event, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


@bp.get("/stream")
def stream() -> Any:
    """Server-sent events for ``bots.STREAM_SECONDS`` (then the bot reconnects, with
    ``Last-Event-ID``: the moves since are told again), a keep-alive comment every
    ``KEEPALIVE`` seconds."""
    bot, env, token = _bot(), services(), _bearer()
    after = _after(request.headers.get("Last-Event-ID"))

    def run() -> Iterator[str]:
        told: set[tuple[Any, ...]] = set()
        end = time.monotonic() + bots.STREAM_SECONDS
        cursor = after
        yield "retry: 1000\n\n"
        while (left := end - time.monotonic()) > 0:
            try:
                bots.authenticate(env, token)  # a token revoked meanwhile ends the stream
            except NotAllowed:
                return
            batch = bots.wait_for(env, bot, cursor, min(KEEPALIVE, left), told)
            cursor = batch.last
            for event in batch.events:
                yield _sse(event)
            if not batch.events:
                yield ": keep-alive\n\n"

    release = _slot()
    response = Response(run(), mimetype="text/event-stream")
    response.call_on_close(release)  # however the stream ends
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # nginx passes each event at once
    return response
