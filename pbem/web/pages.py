"""Public pages: home (start a game), a game's public page, its record, "send me my link"."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from ..i18n import gettext as _
from ..i18n import known_language, known_timezone, reader
from ..i18n import lazy_gettext as _l
from ..services import games, records, seat_links
from ..services.errors import BadRequest
from .client import client
from .context import services

bp = Blueprint("pages", __name__)


@bp.get("/")
def home() -> str:
    return render_template("web/home.html", form={})


@bp.post("/")
def create() -> Any:
    form = request.form
    mine = form.get("my_language") or reader().language
    players = (
        games.PlayerIn(
            form.get("my_name", ""),
            form.get("my_email", ""),
            known_language(mine),
            known_timezone(form.get("my_timezone") or reader().timezone),
        ),
        games.PlayerIn(
            form.get("their_name", ""),
            form.get("their_email", ""),
            known_language(form.get("their_language") or mine),
        ),
    )
    try:
        created = games.create_game(services(), players, clock=_clock(form), await_players=True)
    except BadRequest as exc:
        return render_template("web/home.html", form=form, error=exc.message), 400
    return redirect(url_for("pages.created", public_id=created.public_id), code=303)


def _clock(form: Any) -> games.GameClock:
    """The game's clock from the home form (defaults for anything missing)."""

    def number(name: str, default: int) -> int:
        try:
            return int(form.get(name, default))
        except (TypeError, ValueError):
            raise BadRequest(_l("'%(value)s' is not a number", value=form.get(name))) from None

    days = form.get("days_per_move", "3")
    return games.GameClock(
        days_per_move=None if days in ("", "none") else number("days_per_move", 3),
        reminder_after_hours=number("reminder_after_hours", 24),
        reminder_every_hours=number("reminder_every_hours", 48),
        timeout_action=form.get("timeout_action", "claim"),
        vacation_days=number("vacation_days", 10),
    )


@bp.get("/g/<public_id>/created")
def created(public_id: str) -> str:
    page = games.public_page(services(), public_id)
    return render_template("web/created.html", page=page)


@bp.get("/g/<public_id>")
def game(public_id: str) -> str:
    page = games.public_page(services(), public_id)
    return render_template("web/game.html", page=page)


@bp.get("/g/<public_id>/record.json")
def record(public_id: str) -> Response:
    data = records.export_record(services(), public_id)
    return Response(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n",
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="jaipur-{public_id}.json"'},
    )


@bp.post("/g/<public_id>/link")
def request_link(public_id: str) -> Any:
    seat_links.request_link(services(), public_id, request.form.get("email", ""), client())
    flash(
        _(
            "If that address belongs to a player of this game, their link is on its way. "
            "It can take a few minutes to arrive."
        )
    )
    return redirect(url_for("pages.game", public_id=public_id), code=303)
