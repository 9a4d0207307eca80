"""Events (tournaments): the list, the create form, an event's page, join and withdraw,
the event record, and the JSON API's event routes (``/api/events``). Thin over
``services/events``; GET changes nothing (invariant 4).

An invitation-only event's link carries its key in the path
(``/events/<id>/invited/<secret:token>``): a bearer secret, masked in every log and
never stored by a cache (``private``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response, jsonify, redirect, render_template, request, url_for

from ..i18n import lazy_gettext as _l
from ..services.core.errors import InvalidInput
from ..services.events import draw, entries, lifecycle, pages
from ..services.play import computer
from . import inputs
from .context import services
from .players import need_player, signed_in

bp = Blueprint("events", __name__)

#: How the create form names each format (the services' values, in the reader's words).
FORMAT_NAMES = {
    "round-robin": _l("Round robin"),
    "double-round-robin": _l("Double round robin"),
    "swiss": _l("Swiss"),
    "elimination": _l("Single elimination"),
}
#: What each tie-break's column is called.
TIEBREAK_NAMES = {
    "sonneborn_berger": _l("Sonneborn–Berger"),
    "head_to_head": _l("Head-to-head"),
    "buchholz": _l("Buchholz"),
    "median_buchholz": _l("Median Buchholz"),
    "rounds_won": _l("Rounds won"),
    "seals": _l("Seals"),
    "round_points": _l("Round points"),
}
STATES = {
    "open": _l("taking players"),
    "running": _l("running"),
    "finished": _l("finished"),
    "cancelled": _l("cancelled"),
}


#: The computer's name in the reader's language: an event stores and records it in
#: English (``computer.name``), the same for every reader.
COMPUTER_NAMES = {
    computer.name("easy"): _l("Computer (easy)"),
    computer.name("normal"): _l("Computer (normal)"),
    computer.name("strong"): _l("Computer (strong)"),
}


def shown_name(name: str, page: pages.EventPage) -> Any:
    """An entrant's name as the page shows it: the computer's, if this event has it at
    that level, in the reader's language; anyone else's as they wrote it."""
    levels = {computer.name(e.computer) for e in page.entrants if e.computer}
    return COMPUTER_NAMES.get(name, name) if name in levels else name


@bp.app_template_filter("entrant")
def _entrant(name: str | None, page: pages.EventPage) -> Any:
    return shown_name(name, page) if name is not None else name


@bp.app_context_processor
def _names() -> dict[str, Any]:
    return {
        "event_formats": FORMAT_NAMES,
        "tiebreak_names": TIEBREAK_NAMES,
        "event_states": STATES,
    }


@bp.get("/events")
def event_list() -> str:
    return render_template("web/events.html", events=pages.listing(services()))


@bp.get("/events/new")
def event_form() -> Any:
    player = signed_in()
    if player is None:  # refused, with a page saying to sign in and where
        return render_template("web/event_new.html", player=None, error=None, form={}), 403
    player = need_player()  # the account's language and zone
    return render_template("web/event_new.html", player=player, error=None, form={})


def spec_from(data: Any) -> lifecycle.EventSpec:
    """An event's settings from a form (or the API's JSON object, as strings)."""
    days_raw = str(data.get("days_per_move", "3") or "3").strip()
    days = None
    if days_raw != "none":
        days = inputs.clock_number(
            {"days_per_move": days_raw}, "days_per_move", _l("Time per move"), 3
        )
    starts_at = None
    if str(data.get("start_mode", "full")) == "date":
        raw = str(data.get("starts_at", ""))[:40].strip()
        try:
            starts_at = datetime.fromisoformat(raw)
        except ValueError:
            raise InvalidInput(_l("Choose a start date in the future.")) from None
        if starts_at.tzinfo is None:
            starts_at = starts_at.replace(tzinfo=UTC)
    rounds_raw = str(data.get("rounds", "") or "").strip()
    fmt = str(data.get("format", "swiss"))[:32]
    rounds = None  # none given: the default (``lifecycle.default_rounds``)
    if fmt == "swiss" and rounds_raw:
        rounds = inputs.bounded_int(
            rounds_raw, low=1, high=lifecycle.MAX_SWISS_ROUNDS, label=_l("Rounds")
        )
    return lifecycle.EventSpec(
        name=str(data.get("name", ""))[: inputs.MAX_SHORT],
        format=fmt,
        days_per_move=days,
        max_players=inputs.bounded_int(
            str(data.get("max_players", "8")),
            low=lifecycle.MIN_PLAYERS,
            high=lifecycle.MAX_PLAYERS,
            label=_l("Players"),
        ),
        start_mode=str(data.get("start_mode", "full"))[:8],
        starts_at=starts_at,
        rated=str(data.get("rated", "")).lower() in ("1", "on", "true", "yes"),
        access=str(data.get("access", "open"))[:12],
        rounds=rounds,
    )


@bp.post("/events")
def event_create() -> Any:
    player = need_player()
    try:
        created = lifecycle.create(services(), player.id, spec_from(request.form))
    except InvalidInput as exc:
        return render_template(
            "web/event_new.html", player=player, error=exc.message, form=request.form
        ), 400
    if created.invitation is not None:
        return redirect(
            url_for("events.invited", public_id=created.public_id, token=created.invitation),
            code=303,
        )
    return redirect(url_for("events.event_page", public_id=created.public_id), code=303)


def _page(public_id: str, key: str | None = None) -> str:
    player = signed_in()
    page = pages.event_page(services(), public_id, player.id if player else None)
    return render_template(
        "web/event.html",
        page=page,
        key=key,
        levels=computer.LEVELS,
        invitation_url=url_for("events.invited", public_id=public_id, token=key, _external=True)
        if key
        else None,
    )


@bp.get("/events/<public_id>")
def event_page(public_id: str) -> str:
    return _page(public_id)


@bp.get("/events/<public_id>/invited/<secret:token>")
def invited(public_id: str, token: str) -> str:
    """The invitation link: its key a capability like a seat's token (``private``: no-store)."""
    return _page(public_id, token)


def _back_to(public_id: str) -> Any:
    """After an action on the event's page: the page again (a 303, so a reload sends
    nothing twice)."""
    return redirect(url_for("events.event_page", public_id=public_id), code=303)


@bp.post("/events/<public_id>/join")
def join(public_id: str) -> Any:
    player = need_player()
    entries.join(services(), public_id, player.id, inputs.optional_text(request.form, "key"))
    return _back_to(public_id)


@bp.post("/events/<public_id>/withdraw")
def withdraw(public_id: str) -> Any:
    player = need_player()
    entries.withdraw(services(), public_id, player.id)
    return _back_to(public_id)


@bp.post("/events/<public_id>/computer")
def enter_computer(public_id: str) -> Any:
    player = need_player()
    entries.enter_computer(
        services(), public_id, player.id, inputs.text(request.form, "level", limit=12)
    )
    return _back_to(public_id)


@bp.post("/events/<public_id>/start")
def start(public_id: str) -> Any:
    """The organiser starts an open event now, with the players who joined."""
    player = need_player()
    entries.start_now(services(), public_id, player.id)
    return _back_to(public_id)


@bp.post("/events/<public_id>/cancel")
def cancel(public_id: str) -> Any:
    """The organiser cancels an event before it starts; the form asks them to confirm."""
    player = need_player()
    confirmed = request.form.get("confirm") == "yes"
    entries.cancel(services(), public_id, player.id, confirmed=confirmed)
    return _back_to(public_id)


@bp.get("/events/<public_id>/event.json")
def record(public_id: str) -> Response:
    data = pages.record(services(), public_id)
    return Response(
        json.dumps(data, ensure_ascii=False, indent=1) + "\n",
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="event-{public_id}.json"'},
    )


# ------------------------------------------------------------------ the JSON API


def _summary_json(s: pages.EventSummary) -> dict[str, Any]:
    return {
        "id": s.public_id,
        "name": s.name,
        "format": s.format,
        "state": s.state,
        "players": s.players,
        "max_players": s.max_players,
        "days_per_move": s.days_per_move,
        "start": s.start_mode,
        "starts_at": s.starts_at.isoformat() if s.starts_at else None,
        "rated": s.rated,
        "url": url_for("events.event_page", public_id=s.public_id, _external=True),
    }


def _api_player() -> Any:
    """The API's events are an account's: the session cookie of a signed-in browser. A
    POST must send JSON (``Content-Type: application/json``): no other site's form can,
    and a script of another site cannot without the browser asking this server first."""
    if request.method == "POST" and not request.is_json:
        raise InvalidInput(_l("Send a JSON object with Content-Type: application/json."))
    return need_player()


#: The fields of ``POST /api/events`` and their JSON types (docs/events.md, "The JSON API").
CREATE_FIELDS = {
    "name": "text",
    "format": "text",
    "rounds": "whole",
    "max_players": "whole",
    "days_per_move": "whole_or_null",
    "start": "text",
    "starts_at": "text",
    "rated": "boolean",
    "access": "text",
}
CREATE_EXAMPLE = '{"name": "Spring cup", "format": "swiss", "rounds": 5}'


@bp.get("/api/events")
def api_list() -> Any:
    return jsonify({"events": [_summary_json(s) for s in pages.listing(services())]})


@bp.post("/api/events")
def api_create() -> Any:
    player = _api_player()
    data = inputs.json_fields(CREATE_EXAMPLE, CREATE_FIELDS)
    form = {k: str(v) for k, v in data.items() if k not in ("start", "rated", "days_per_move")}
    if "start" in data:
        form["start_mode"] = data["start"]
    if "days_per_move" in data:
        form["days_per_move"] = (
            "none" if data["days_per_move"] is None else str(data["days_per_move"])
        )
    form["rated"] = "true" if data.get("rated", True) else ""
    created = lifecycle.create(services(), player.id, spec_from(form))
    return jsonify(
        {
            "id": created.public_id,
            "commitment": created.commitment,
            "invitation": created.invitation,
        }
    ), 201


@bp.post("/api/events/<public_id>/join")
def api_join(public_id: str) -> Any:
    player = _api_player()
    key = inputs.json_fields('{"key": "…"}', {"key": "text"}).get("key")
    started = entries.join(services(), public_id, player.id, key)
    return jsonify({"joined": True, "started": started})


@bp.post("/api/events/<public_id>/withdraw")
def api_withdraw(public_id: str) -> Any:
    player = _api_player()
    inputs.json_fields("{}", {})  # no fields: one withdraws oneself only
    entries.withdraw(services(), public_id, player.id)
    return jsonify({"withdrawn": True})


@bp.post("/api/events/<public_id>/start")
def api_start(public_id: str) -> Any:
    player = _api_player()
    inputs.json_fields("{}", {})  # no fields: the organiser starts it with who joined
    paired = entries.start_now(services(), public_id, player.id)
    return jsonify({"started": True, "round": paired})


@bp.post("/api/events/<public_id>/cancel")
def api_cancel(public_id: str) -> Any:
    player = _api_player()
    inputs.json_fields("{}", {})
    entries.cancel(services(), public_id, player.id)
    return jsonify({"cancelled": True})


@bp.get("/api/events/<public_id>")
def api_event(public_id: str) -> Any:
    page = pages.event_page(services(), public_id)
    return jsonify(
        {
            **_summary_json(page.summary),
            "commitment": page.commitment,
            "seed": page.seed,
            "cancelled_by": page.cancelled_by,
            "tiebreaks": list(page.tiebreaks),
            "standings": [
                {
                    "rank": r.rank,
                    "name": r.name,
                    "points": r.points,
                    "played": r.played,
                    "wins": r.wins,
                    "losses": r.losses,
                    "byes": r.byes,
                    "tiebreaks": dict(r.tiebreaks),
                    "withdrawn": r.withdrawn,
                }
                for r in page.standings
            ],
            "rounds": [
                {
                    "round": r.number,
                    "boards": [
                        {
                            "board": b.board,
                            "first": b.first,
                            "second": b.second,
                            "game": b.game,
                            "result": b.result,
                        }
                        for b in r.boards
                    ],
                }
                for r in page.rounds
            ],
            "record": url_for("events.record", public_id=public_id, _external=True),
        }
    )


__all__ = ["bp", "draw"]
