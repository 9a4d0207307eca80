"""The seat pages: a player's private view, reached only through their link."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from flask import Blueprint, Response, redirect, render_template, request, url_for

from ..engine import CARDS, Card, Move
from ..engine.views import PLACES, meant, picked
from ..i18n import lazy_gettext as _l
from ..i18n import reader
from ..i18n.notation import written
from ..services.core.errors import InvalidInput, MoveRefused, ServiceError, WrongState
from ..services.play import game_pages, link_recovery, moves, new_games, seat_settings, turns
from ..services.records import game_records
from . import inputs
from .client import client
from .context import services
from .locale import for_seat, remember, remember_for_seat, seat_language
from .replay import flag_headers

bp = Blueprint("seat", __name__, url_prefix="/s/<secret:token>")


def _n() -> int:
    """The number of the move the form was made for (the game may have moved on since)."""
    return inputs.number(request.form, "n", low=1, high=inputs.MAX_MOVE, label=_l("Move"))


def selection_key(cards: dict[str, tuple[str, ...]]) -> str:
    """A selection of cards as one string: ``market:camel,camel;hand:;herd:``, each place's
    card words sorted as strings (static/seat.js writes a selection the same way)."""
    return ";".join(f"{place}:{','.join(sorted(cards.get(place, ())))}" for place in PLACES)


#: The most cards one place of a selection may name (more than any table holds).
_MOST_PICKED = 12
_CARD_WORDS = frozenset(c.word for c in CARDS)
UNREADABLE_SELECTION = _l("The cards picked could not be read: pick them again.")


def selection_from(key: str) -> dict[str, tuple[str, ...]]:
    """A selection as ``selection_key`` writes it, read back; anything else is refused."""
    parts = key.split(";")
    cards: dict[str, tuple[str, ...]] = {}
    if len(parts) != len(PLACES):
        raise InvalidInput(UNREADABLE_SELECTION)
    for place, part in zip(PLACES, parts, strict=True):
        name, _, words = part.partition(":")
        picked_here = tuple(words.split(",")) if words else ()
        if (
            name != place
            or len(picked_here) > _MOST_PICKED
            or not _CARD_WORDS.issuperset(picked_here)
        ):
            raise InvalidInput(UNREADABLE_SELECTION)
        cards[place] = picked_here
    if not any(cards.values()):
        raise InvalidInput(UNREADABLE_SELECTION)
    return cards


def _move_asked() -> tuple[str, str | None]:
    """The move a preview asks about and the language to read it in: cards clicked (the
    ``cards`` field) are written in the canonical notation whatever the page's language,
    so the rules, not the page, say what they make; a move typed is read in the page's
    language (the seat's, or the one this browser chose for the seat)."""
    if "cards" in request.form:
        return meant(selection_from(inputs.text(request.form, "cards", limit=400))), "en"
    return inputs.text(request.form, "move"), seat_language()


def move_choices(page: game_pages.SeatPage) -> dict[str, Any]:
    """What the page's script needs to build a move from cards clicked, and no rule: each
    legal move by the selection that makes it, in the reader's notation, and which market
    cards are clicked together."""
    market = page.view.table.market
    return {
        "together": list(page.view.table.taken_together),
        "moves": dict(_choices(tuple(page.legal), market, reader().language)),
    }


@lru_cache(maxsize=2048)
def _choices(
    legal: tuple[Move, ...], market: tuple[Card, ...], language: str
) -> tuple[tuple[str, str], ...]:
    """Each legal move's selection key and text, kept per position and language: a seat
    page is opened far more often than its position changes."""
    return tuple((selection_key(picked(m, market)), written(str(m), language)) for m in legal)


Won = tuple[tuple[Card | None, tuple[int, ...]], ...]


def tokens_won(entries: tuple[Any, ...], seat: int, values: tuple[int, ...]) -> Won:
    """A seat's goods tokens of this round grouped by good, as the log's sales won them, so
    that a page (and a screen reader) names each token's good. The round's tokens are its
    sales' tokens in order; where the log does not add up to them (it always should), the
    values stand alone under no good."""
    starts = [0] + [i + 1 for i, e in enumerate(entries) if e.ended is not None]
    for start in reversed(starts[-2:]):  # this round's, or (game over) the last round's
        sales = [
            (e.words.move.good, e.words.tokens)
            for e in entries[start:]
            if e.seat == seat and e.words.tokens
        ]
        if tuple(t for _, tokens in sales for t in tokens) == values:
            groups: dict[Card, tuple[int, ...]] = {}
            for good, tokens in sales:
                groups[good] = groups.get(good, ()) + tokens
            return tuple(groups.items())
    return ((None, values),) if values else ()


def _page(token: str, status: int = 200, **context: Any) -> Any:
    """The seat's page, in the seat's language (errors passed in are translated lazily)."""
    page = game_pages.seat_page(services(), token, client())
    for_seat(page.reader)
    if isinstance(page, game_pages.WaitingPage):
        return render_template("web/accept.html", page=page, **context), status
    choices = move_choices(page)
    view = page.view
    won = (
        tokens_won(page.entries, view.me.seat, view.me.goods_tokens),
        tokens_won(page.entries, view.opponent.seat, view.opponent.goods_tokens),
    )
    return render_template("web/seat.html", page=page, choices=choices, won=won, **context), status


def _act(
    token: str,
    action: Callable[[], Any],
    done: str | Callable[[Any], str],
    keep_form: bool = False,
) -> Any:
    """Run a seat's action; its refusal is shown on the seat page (a bad link stays a 403).
    ``done`` names what the page then says, or picks it from the action's answer;
    ``keep_form`` gives a refused form back its choices (the accept form's language and zone)."""
    try:
        answer = action()
    except ServiceError as exc:
        if exc.status == 403:
            raise
        if keep_form:
            return _page(token, exc.status, error=exc, form=request.form)
        return _page(token, exc.status, error=exc)
    said = done if isinstance(done, str) else done(answer)
    return redirect(url_for("seat.view", token=token, done=said), code=303)


@bp.post("/accept")
def accept(token: str) -> Any:
    def accept_it() -> None:
        form = request.form
        contribution = new_games.contribution_from(
            inputs.text(form, "entropy"), inputs.text(form, "phrase", limit=inputs.MAX_TEXT)
        )
        new_games.accept(
            services(),
            token,
            contribution,
            client(),
            language=inputs.optional_text(form, "language"),
            timezone=inputs.optional_text(form, "timezone"),
        )

    answer = _act(token, accept_it, "accept", keep_form=True)
    if isinstance(answer, Response) and request.form.get("language"):
        remember_for_seat(answer, None)  # the language chosen in the form speaks
    return answer


@bp.get("")
def view(token: str) -> Any:
    return _page(token, done=inputs.text(request.args, "done", limit=20))


@bp.post("/preview")
def preview(token: str) -> Any:
    text = ""
    try:
        text, language = _move_asked()
        note = moves.clean_message(
            inputs.optional_text(request.form, "message", limit=inputs.MAX_TEXT)
        )
        result = moves.preview_move(services(), token, _n(), text, client(), language=language)
    except (WrongState, InvalidInput) as exc:
        return _page(token, exc.status, error=exc)
    except MoveRefused as exc:
        return _page(token, 422, error=exc, typed=text, note=note)
    return _page(token, preview=result, typed=text, note=note)


@bp.post("/move")
def move(token: str) -> Any:
    try:
        text = inputs.text(request.form, "move")
        note = inputs.optional_text(request.form, "message", limit=inputs.MAX_TEXT)
        moves.submit_move(
            services(),
            token,
            _n(),
            text,
            client(),
            source="web",
            message=note,
            language=seat_language(),
        )
    except (WrongState, InvalidInput) as exc:
        return _page(token, exc.status, error=exc)
    except MoveRefused as exc:
        return _page(token, 422, error=exc, typed=text, note=note)
    return redirect(url_for("seat.view", token=token, done="move"), code=303)


@bp.post("/resign")
def resign(token: str) -> Any:
    if inputs.text(request.form, "confirm") != "yes":
        return _page(token, 400, error=_l("Tick the box to confirm that you resign."))
    return _act(token, lambda: moves.resign(services(), token, _n(), client()), "resign")


@bp.post("/claim")
def claim(token: str) -> Any:
    return _act(token, lambda: moves.claim_win(services(), token, _n(), client()), "claim")


@bp.post("/away")
def away(token: str) -> Any:
    try:
        days = inputs.decimal(
            request.form,
            "days",
            low=turns.MIN_AWAY_DAYS,
            high=inputs.MAX_DAYS,
            label=_l("Days away"),
        )
    except InvalidInput:
        return _page(token, 400, error=_l("Say for how many days you will be away."))
    return _act(
        token,
        lambda: seat_settings.set_away(services(), token, days, client()),
        # an absence that already ran longer stays, and the page says so
        lambda away: "away" if away.changed else "away-kept",
    )


@bp.post("/back")
def back(token: str) -> Any:
    seat_settings.come_back(services(), token, client())
    return redirect(url_for("seat.view", token=token, done="back"), code=303)


@bp.post("/mail")
def mail(token: str) -> Any:
    mode, everywhere = inputs.text(request.form, "mode"), request.form.get("all") == "yes"
    return _act(
        token,
        lambda: seat_settings.set_mail_mode(
            services(), token, mode, client(), all_games=everywhere
        ),
        "mail",
    )


@bp.post("/receipts")
def receipts(token: str) -> Any:
    """Which of its own moves the seat gets a receipt of (by default: a move mailed in)."""
    chosen, everywhere = inputs.text(request.form, "receipts"), request.form.get("all") == "yes"
    return _act(
        token,
        lambda: seat_settings.set_receipts(
            services(), token, chosen, client(), all_games=everywhere
        ),
        "receipts",
    )


@bp.post("/reader")
def language(token: str) -> Any:
    """The seat's language and time zone, for its pages and its mails from now on."""
    lang, zone = inputs.text(request.form, "language"), inputs.text(request.form, "timezone")
    try:
        chosen = seat_settings.set_reader(services(), token, lang, zone, client())
    except ServiceError as exc:
        if exc.status == 403:
            raise
        return _page(token, exc.status, error=exc)
    response = redirect(url_for("seat.view", token=token, done="language"), code=303)
    remember_for_seat(response, None)  # the seat's own language speaks again
    return remember(response, chosen.language, chosen.timezone)


@bp.post("/reissue")
def reissue(token: str) -> Any:
    link_recovery.reissue_link(services(), token, client())
    return render_template("web/reissued.html")


@bp.get("/export")
def export(token: str) -> Response:
    data = game_records.export_record(services(), token=token, client=client())
    return Response(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n",
        mimetype="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="jaipur-{data["game_id"]}-mine.json"',
            **flag_headers(data),
        },
    )
