"""Sign-in by email link, "my games", settings, challenges, player pages and ratings.

The session cookie holds the player's id and session version only; GET never uses
a sign-in link (mail scanners open links): the page it opens asks for a POST.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, session, url_for

from ..i18n import (
    LANGUAGES,
    joined,
    ngettext,
    reader,
    set_reader,
    shown_duration,
    translations,
)
from ..i18n import gettext as _
from ..i18n import lazy_gettext as _l
from ..services.accounts import (
    account_settings,
    address_change,
    bots,
    dashboard,
    erasure,
    public_player,
    sessions,
    sign_in,
    unsubscribe,
)
from ..services.core.errors import InvalidInput, NotAllowed
from ..services.play import (
    challenges,
    computer,
    game_clock,
    game_pages,
    new_games,
    ratings,
    seat_settings,
    turns,
)
from ..store.models import Player
from ..templating import when
from . import csrf, inputs
from .client import client
from .context import services
from .locale import asked_language, for_account, for_player, remember

bp = Blueprint("players", __name__)


def signed_in() -> Player | None:
    return sessions.current(
        services(), session.get("player"), session.get("sv"), session.get("sid")
    )


def need_player() -> Player:
    player = signed_in()
    if player is None:
        raise NotAllowed(_l("Sign in first: enter your email address and use the link we send."))
    # the account's language; times in its zone, unless the browser said its own
    for_account(player.language, player.timezone)
    return player


def _contribution() -> bytes | None:
    entropy = inputs.text(request.form, "entropy")
    return new_games.contribution_from(entropy, None) if entropy else None


@bp.app_context_processor
def _me() -> dict[str, Any]:
    """The header's signed-in player as a plain value, read as the page is rendered."""
    me = sessions.signed_in_as(
        services(), session.get("player"), session.get("sv"), session.get("sid")
    )
    return {"signed_in_as": me}


@bp.get("/u/<secret:token>")
def unsubscribe_page(token: str) -> str:
    """What the mail's unsubscribe link does, and a button that does it (a GET changes
    nothing: mail scanners open every link), with the link's other choices."""
    return _unsubscribe_page(unsubscribe.look(services(), token))


@bp.post("/u/<secret:token>")
def unsubscribe_post(token: str) -> Any:
    """The one-click POST of RFC 8058 (``List-Unsubscribe=One-Click``) and the page's button;
    with a ``mode``, one of the page's other choices (which may mean more mail: those
    carry the page's form token, ``csrf``)."""
    if "mode" not in request.form:
        return _unsubscribe_page(unsubscribe.unsubscribe(services(), token, client()), True)
    csrf.check()
    try:
        done = unsubscribe.choose(services(), token, inputs.text(request.form, "mode"), client())
    except InvalidInput as exc:
        look = unsubscribe.look(services(), token)
        return _unsubscribe_page(look, error=exc.message), 400
    return _unsubscribe_page(done, True, chosen=True)


def _unsubscribe_page(what: unsubscribe.Unsubscribe, switched: bool = False, **extra: Any) -> str:
    """In the seat's (or the account's) language, as the mail was, unless the URL asks for
    another (the page's language switcher)."""
    set_reader(asked_language() or what.language, reader().timezone)
    return render_template("web/unsubscribe.html", what=what, switched=switched, **extra)


@bp.get("/signin")
def signin_form() -> str:
    return render_template("web/signin.html", sent=False)


@bp.post("/signin")
def signin_request() -> Any:
    try:
        sign_in.request_sign_in(services(), inputs.text(request.form, "email"), client())
    except InvalidInput as exc:
        return render_template("web/signin.html", sent=False, error=exc.message), 400
    return render_template("web/signin.html", sent=True)


@bp.get("/signin/<secret:token>")
def signin_link(token: str) -> str:
    link = sign_in.check_link(services(), token)
    for_player(sign_in.link_zone(services(), link))  # the expiry in the player's zone
    return render_template("web/signin_link.html", link=link, token=token)


@bp.post("/signin/<secret:token>")
def signin_use(token: str) -> Any:
    done = sign_in.use_link(services(), token, client())
    session.clear()
    session["player"], session["sv"] = done.player_id, done.session_version
    session["sid"] = done.session_id
    session.permanent = True
    return redirect(url_for("players.my_games"), code=303)


@bp.post("/signout")
def signout() -> Any:
    """End this browser's session on the server too: a copy of the cookie is worth nothing."""
    sessions.sign_out(services(), session.get("sid"), client())
    session.clear()
    return redirect(url_for("pages.home"), code=303)


@bp.post("/signout-everywhere")
def signout_everywhere() -> Any:
    player = need_player()
    sessions.sign_out_everywhere(services(), player.id, client())
    session.clear()
    return redirect(url_for("pages.home"), code=303)


@bp.get("/me")
def my_games() -> str:
    player = need_player()
    return render_template(
        "web/me.html",
        mine=dashboard.my_games(services(), player.id),
        bots=bots.bots_of(services(), player.id),
        done=inputs.text(request.args, "done", limit=20),
    )


@bp.post("/me/bots")
def bot_register() -> Any:
    """Register a bot account (docs/bots.md): its token is shown on this answer only."""
    player = need_player()
    try:
        made = bots.register(
            services(), player.id, inputs.text(request.form, "name", limit=200), client()
        )
    except InvalidInput as exc:  # the name typed stays in its field, to be corrected
        return _me_page(400, error=exc.message, kept_bot=request.form.get("name", "")[:200])
    return _me_page(200, new_token=made.token, new_token_bot=made.bot)


@bp.post("/me/bots/<bot_id>/token")
def bot_rotate(bot_id: str) -> Any:
    """A new token for one of the person's bots; the old one stops working."""
    player = need_player()
    token = bots.rotate(services(), player.id, bot_id)
    shown = next((b for b in bots.bots_of(services(), player.id) if b.public_id == bot_id), None)
    return _me_page(200, new_token=token, new_token_bot=shown)


@bp.post("/me/bots/<bot_id>/revoke")
def bot_revoke(bot_id: str) -> Any:
    player = need_player()
    bots.revoke(services(), player.id, bot_id)
    return redirect(url_for("players.my_games", done="settings"), code=303)


@bp.post("/me/computer")
def play_computer() -> Any:
    """ "Play the computer" in "my games": one click deals the game, with this browser's bytes."""
    player = need_player()
    try:
        token = computer.start_signed_in(
            services(), player.id, inputs.text(request.form, "level"), _contribution(), client()
        )
    except InvalidInput as exc:
        return _me_page(400, error=exc.message)
    return redirect(url_for("seat.view", token=token), code=303)


def _me_page(status: int, **context: Any) -> Any:
    player = need_player()
    return render_template(
        "web/me.html",
        mine=dashboard.my_games(services(), player.id),
        bots=bots.bots_of(services(), player.id),
        **context,
    ), status


@bp.post("/me/settings")
def settings() -> Any:
    player = need_player()
    form = request.form
    try:
        account_settings.update_settings(
            services(),
            player.id,
            # a field not sent is not changed (None), and neither is one sent as it was
            name=inputs.optional_text(form, "name"),
            mail_mode=inputs.optional_text(form, "mail_mode"),
            language=inputs.optional_text(form, "language"),
            timezone=inputs.optional_text(form, "timezone"),
            client=client(),
        )
    except InvalidInput as exc:  # the form comes back as it was sent, nothing lost
        sent_back = {
            k: form[k][:200] for k in ("name", "mail_mode", "language", "timezone") if k in form
        }
        return _me_page(400, error=exc.message, sent_back=sent_back)
    response = redirect(url_for("players.my_games", done="settings"), code=303)
    return remember(response, form.get("language"), form.get("timezone"))


@bp.post("/me/receipts")
def receipts() -> Any:
    """Receipts of the player's own moves, in all their games and the games they start later."""
    player = need_player()
    try:
        seat_settings.set_player_receipts(
            services(), player.id, inputs.text(request.form, "receipts"), client()
        )
    except InvalidInput as exc:
        return _me_page(400, error=exc.message)
    return redirect(url_for("players.my_games", done="settings"), code=303)


@bp.post("/me/away")
def away() -> Any:
    player = need_player()
    try:
        days = inputs.decimal(
            request.form,
            "days",
            low=turns.MIN_AWAY_DAYS,
            high=inputs.MAX_DAYS,
            label=_l("Days away"),
        )
    except InvalidInput:
        return _me_page(400, error=_l("Say for how many days you will be away."))
    done = account_settings.away_everywhere(services(), player.id, days, client())
    for message in away_told(done, days):
        flash(message)
    return redirect(url_for("players.my_games"), code=303)


#: More games than this whose allowance cut the time away are told of in one line.
AWAY_NAMED = 5


def away_told(done: list[account_settings.AwayInGame], asked: float) -> list[str]:
    """What stopping the clocks did, exactly: where the days asked for were stored, where
    less (the game's allowance let through less), where an absence already ran longer and
    stays, where none was left."""
    if not done:
        return [_("You have no running game: no clock was stopped.")]
    told = []
    whole = [d for d in done if d.away.changed and not d.away.cut]
    cut = [d for d in done if d.away.changed and d.away.cut]
    kept = [d for d in done if not d.away.changed and d.away.until is not None]
    none = [d for d in done if d.away.until is None]
    if whole:
        told.append(
            ngettext(
                "Your clock is stopped until %(when)s in %(num)s running game.",
                "Your clock is stopped until %(when)s in %(num)s running games.",
                len(whole),
                when=when(whole[0].away.until),
            )
        )
    if len(cut) > AWAY_NAMED:
        told.append(
            ngettext(
                "In %(num)s game fewer days away were left: its clock is stopped for those.",
                "In %(num)s games fewer days away were left: each clock is stopped for those.",
                len(cut),
            )
        )
    else:
        for d in cut:
            told.append(
                _(
                    "Against %(name)s the time away left was %(time)s: "
                    "your clock there is stopped until %(when)s.",
                    name=d.opponent,
                    time=shown_duration(d.away.length),
                    when=when(d.away.until),
                )
            )
    if len(kept) > AWAY_NAMED:
        told.append(
            ngettext(
                "In %(num)s game you were already away until later: that stays.",
                "In %(num)s games you were already away until later: that stays.",
                len(kept),
            )
        )
    else:
        for d in kept:
            told.append(
                _(
                    "Against %(name)s you were already away until %(when)s: that stays.",
                    name=d.opponent,
                    when=when(d.away.until),
                )
            )
    if none:
        told.append(
            ngettext(
                "In %(num)s game no days away are left: its clock runs on (%(names)s).",
                "In %(num)s games no days away are left: their clocks run on (%(names)s).",
                len(none),
                names=joined([d.opponent for d in none]),
            )
        )
    return told


@bp.post("/me/email")
def change_email() -> Any:
    player = need_player()
    try:
        address_change.request_email_change(
            services(), player.id, inputs.text(request.form, "email"), client()
        )
    except InvalidInput as exc:
        return _me_page(400, error=exc.message)
    return redirect(url_for("players.my_games", done="email"), code=303)


def _erase_words() -> set[str]:
    """The words that confirm erasing an account: "erase" in English and as each language
    writes it (the page asks for the reader's; a reader who reads it in another still
    types a word of ours)."""
    return {"erase"} | {translations(lang).gettext("erase").casefold() for lang in LANGUAGES}


@bp.post("/me/erase")
def erase() -> Any:
    player = need_player()
    if inputs.text(request.form, "confirm").strip().casefold() not in _erase_words():
        return _me_page(
            400,
            error=_l("Type %(word)s to confirm that your account should go.", word=_("erase")),
        )
    erasure.erase(services(), player.id, client())
    session.clear()
    return render_template("web/erased.html")


@bp.get("/challenges")
def challenge_list() -> str:
    player = signed_in()
    return render_template(
        "web/challenges.html",
        challenges=challenges.open_list(services(), player.id if player else None),
    )


@bp.post("/challenges")
def challenge_post() -> Any:
    player = need_player()
    form = request.form
    try:
        days = None
        default = game_clock.GameClock().days_per_move
        if inputs.text(form, "days_per_move", default=str(default)) not in ("", "none"):
            days = inputs.clock_number(form, "days_per_move", _l("Time per move"), default)
        challenges.post(
            services(),
            player.id,
            days_per_move=days,
            starter=inputs.text(form, "starter", default="random"),
            note=inputs.optional_text(form, "note", limit=inputs.MAX_TEXT),
            client=client(),
        )
    except InvalidInput as exc:
        return render_template(
            "web/challenges.html",
            error=exc.message,
            challenges=challenges.open_list(services(), player.id),
        ), 400
    return redirect(url_for("players.challenge_list"), code=303)


@bp.post("/challenges/<challenge_id>/accept")
def challenge_accept(challenge_id: str) -> Any:
    player = need_player()
    public_id = challenges.accept(
        services(), challenge_id, player.id, _contribution(), client=client()
    )
    return redirect(url_for("pages.created", public_id=public_id), code=303)


@bp.post("/challenges/<challenge_id>/withdraw")
def challenge_withdraw(challenge_id: str) -> Any:
    player = need_player()
    challenges.withdraw(services(), challenge_id, player.id)
    return redirect(url_for("players.challenge_list"), code=303)


@bp.post("/s/<secret:token>/rematch")
def rematch(token: str) -> Any:
    claim = services().links.open_seat(token)
    public_id = challenges.rematch(services(), token, _contribution(), client())
    seat = claim.seat if claim else 0
    new_token = game_pages.seat_tokens(services(), public_id)[seat]
    return redirect(url_for("seat.view", token=new_token), code=303)


@bp.post("/s/<secret:token>/computer-again")
def computer_again(token: str) -> Any:
    """ "Play the computer again" at the end of a game against it: dealt at once."""
    new_token = computer.again(services(), token, _contribution(), client())
    return redirect(url_for("seat.view", token=new_token), code=303)


@bp.get("/p/<public_id>")
def player_page(public_id: str) -> str:
    return render_template(
        "web/player.html", page=public_player.public_player(services(), public_id)
    )


@bp.get("/ratings")
def rating_table() -> str:
    return render_template("web/ratings.html", rows=ratings.table(services()))
