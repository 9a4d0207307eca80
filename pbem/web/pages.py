"""Public pages: home (start a game), a game's public page, its record, "send me my link"."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from ..i18n import gettext as _
from ..i18n import known_language, known_timezone, reader
from ..i18n import lazy_gettext as _l
from ..services import computer, games, link_recovery, records
from ..services.errors import BadRequest
from . import inputs
from .client import client
from .context import services
from .replay import flag_headers

bp = Blueprint("pages", __name__)


@bp.get("/")
def home() -> str:
    return render_template("web/home.html", form={})


@bp.post("/")
def create() -> Any:
    form = request.form
    try:
        mine = inputs.text(form, "my_language") or reader().language
        players = (
            games.PlayerIn(
                inputs.text(form, "my_name"),
                inputs.text(form, "my_email"),
                known_language(mine),
                known_timezone(inputs.text(form, "my_timezone") or reader().timezone),
            ),
            games.PlayerIn(
                inputs.text(form, "their_name"),
                inputs.text(form, "their_email"),
                known_language(inputs.text(form, "their_language") or mine),
            ),
        )
        created = games.create_game(
            services(), players, clock=_clock(form), await_players=True, client=client()
        )
    except BadRequest as exc:
        return render_template("web/home.html", form=form, error=exc.message), 400
    return redirect(url_for("pages.created", public_id=created.public_id), code=303)


@bp.post("/computer")
def play_computer() -> Any:
    """ "Play the computer" on the home page: the link is mailed, as for any new game, and
    the game is dealt when the player accepts from it (so the address is theirs)."""
    form = request.form
    try:
        mine = inputs.text(form, "my_language") or reader().language
        person = games.PlayerIn(
            inputs.text(form, "my_name"),
            inputs.text(form, "my_email"),
            known_language(mine),
            known_timezone(inputs.text(form, "my_timezone") or reader().timezone),
        )
        created = computer.start(services(), person, inputs.text(form, "level"), client=client())
    except BadRequest as exc:
        return render_template("web/home.html", form=form, computer_error=exc.message), 400
    return redirect(url_for("pages.created", public_id=created.public_id), code=303)


def _clock(form: Any) -> games.GameClock:
    """The game's clock from the home form (defaults for anything missing)."""
    days = inputs.text(form, "days_per_move", default="3")

    def hours(name: str, label: Any, default: int) -> int:
        return inputs.number(form, name, low=1, high=24 * 30, label=label, default=default)

    per_move = _l("Time per move")
    return games.GameClock(
        days_per_move=None
        if days in ("", "none")
        else inputs.number(form, "days_per_move", low=1, high=60, label=per_move, default=3),
        reminder_after_hours=hours("reminder_after_hours", _l("First reminder after"), 24),
        reminder_every_hours=hours("reminder_every_hours", _l("Reminders"), 48),
        timeout_action=inputs.text(form, "timeout_action", default="claim"),
        vacation_days=inputs.number(
            form, "vacation_days", low=0, high=60, label=_l("Vacation days per player"), default=10
        ),
    )


@bp.get("/g/<public_id>/created")
def created(public_id: str) -> str:
    page = games.public_page(services(), public_id)
    return render_template("web/created.html", page=page)


@bp.get("/g/<public_id>")
def game(public_id: str) -> str:
    page = games.public_page(services(), public_id)
    return render_template("web/game.html", page=page)


@bp.get("/g/<public_id>/n")
def log_length(public_id: str) -> Response:
    """``{"n": moves logged}``: what a seat page waiting for the other player asks until the
    log moves past the position it shows, then it asks for itself (static/follow.js). Public
    like the move list, so it takes no seat link and writes nothing."""
    n = games.log_length(services(), public_id)
    return Response(
        json.dumps({"n": n}), mimetype="application/json", headers={"Cache-Control": "no-store"}
    )


@bp.get("/g/<public_id>/record.json")
def record(public_id: str) -> Response:
    data = records.export_record(services(), public_id)
    return Response(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n",
        mimetype="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="jaipur-{public_id}.json"',
            **flag_headers(data),
        },
    )


@bp.post("/g/<public_id>/link")
def request_link(public_id: str) -> Any:
    link_recovery.request_link(services(), public_id, inputs.text(request.form, "email"), client())
    flash(
        _(
            "If that address belongs to a player of this game, their link is on its way. "
            "It can take a few minutes to arrive."
        )
    )
    return redirect(url_for("pages.game", public_id=public_id), code=303)
