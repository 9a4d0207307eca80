"""Public pages: home (start a game), a game's public page, its record, "send me my link"."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from ..i18n import gettext as _
from ..i18n import lazy_gettext as _l
from ..i18n import reader
from ..services.core.errors import InvalidInput
from ..services.play import computer, game_clock, game_pages, link_recovery, new_games
from ..services.records import game_records
from . import inputs
from .client import client
from .context import services
from .players import signed_in
from .replay import flag_headers

bp = Blueprint("pages", __name__)


@bp.get("/")
def home() -> str:
    """The home page; a signed-in player finds their name and address filled in, so the
    games they start count as theirs (``new_games.create_game``)."""
    player = signed_in()
    mine = {"my_name": player.display_name, "my_email": player.email} if player else {}
    return render_template("web/home.html", form=mine)


@bp.get("/privacy")
def privacy() -> str:
    """What is kept about a player, and for how long (the periods of ``Config.retention``)."""
    kept = services().config.retention
    return render_template(
        "web/privacy.html", mail_days=kept.mail_days, client_days=kept.client_days
    )


@bp.post("/")
def create() -> Any:
    form = request.form
    try:
        mine = inputs.text(form, "my_language") or reader().language
        players = (
            new_games.PlayerIn(
                inputs.text(form, "my_name"),
                inputs.text(form, "my_email"),
                mine,
                inputs.text(form, "my_timezone") or reader().timezone,
            ),
            new_games.PlayerIn(
                inputs.text(form, "their_name"),
                inputs.text(form, "their_email"),
                inputs.text(form, "their_language") or mine,
            ),
        )
        created = new_games.create_game(
            services(),
            players,
            clock=_clock(form),
            await_players=True,
            client=client(),
            player_id=_signed_in_id(),
            who=(_l("You"), _l("Your opponent")),  # as the form's two parts are headed
        )
    except InvalidInput as exc:
        return render_template("web/home.html", form=form, error=exc.message), 400
    return redirect(url_for("pages.created", public_id=created.public_id), code=303)


@bp.post("/computer")
def play_computer() -> Any:
    """ "Play the computer" on the home page: the link is mailed, as for any new game, and
    the game is dealt when the player accepts from it (so the address is theirs)."""
    form = request.form
    try:
        mine = inputs.text(form, "my_language") or reader().language
        person = new_games.PlayerIn(
            inputs.text(form, "my_name"),
            inputs.text(form, "my_email"),
            mine,
            inputs.text(form, "my_timezone") or reader().timezone,
        )
        created = computer.start(
            services(),
            person,
            inputs.text(form, "level"),
            client=client(),
            player_id=_signed_in_id(),
        )
    except InvalidInput as exc:
        return render_template("web/home.html", form=form, computer_error=exc.message), 400
    return redirect(url_for("pages.created", public_id=created.public_id), code=303)


def _signed_in_id() -> int | None:
    """The signed-in player starting a game: limited as their account
    (``new_games.create_game``)."""
    player = signed_in()
    return player.id if player is not None else None


def _clock(form: Any) -> game_clock.GameClock:
    """The game's clock from the home form: the service's defaults for anything missing,
    each number bounded by the service's own limits (``game_clock.CLOCK_LIMITS``)."""
    defaults = game_clock.GameClock()
    days = inputs.text(form, "days_per_move", default=str(defaults.days_per_move))

    def number(name: str, label: Any) -> int:
        return inputs.clock_number(form, name, label, getattr(defaults, name))

    return game_clock.GameClock(
        days_per_move=None
        if days in ("", "none")
        else number("days_per_move", _l("Time per move")),
        reminder_after_hours=number("reminder_after_hours", _l("First reminder after")),
        reminder_every_hours=number("reminder_every_hours", _l("Reminders")),
        timeout_action=inputs.text(form, "timeout_action", default=defaults.timeout_action),
        vacation_days=number("vacation_days", _l("Vacation days per player")),
    )


@bp.get("/g/<public_id>/created")
def created(public_id: str) -> str:
    page = game_pages.public_page(services(), public_id)
    return render_template("web/created.html", page=page)


@bp.get("/g/<public_id>")
def game(public_id: str) -> str:
    page = game_pages.public_page(services(), public_id)
    return render_template("web/game.html", page=page)


@bp.get("/g/<public_id>/n")
def log_length(public_id: str) -> Response:
    """``{"n": moves logged, "dealt": cards dealt}``: what a seat page waiting for the other
    player asks until the log moves past the position it shows (or, before the deal, until
    the other player accepts), then it asks for itself (static/follow.js). Public like the
    move list, so it takes no seat link and writes nothing."""
    n, dealt = game_pages.log_length(services(), public_id)
    return Response(
        json.dumps({"n": n, "dealt": dealt}),
        mimetype="application/json",
        headers={"Cache-Control": "no-store"},
    )


@bp.get("/g/<public_id>/record.json")
def record(public_id: str) -> Response:
    data = game_records.export_record(services(), public_id)
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
    flash(  # the same whether a mail went or not (docs: "send me my link again")
        _(
            "If that address belongs to a player of this game, their link is on its way "
            "(it can take a few minutes to arrive), or went to it lately: the newest of "
            "those mails holds it."
        )
    )
    return redirect(url_for("pages.game", public_id=public_id), code=303)
