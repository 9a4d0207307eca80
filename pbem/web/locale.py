"""Which language and time zone a request is answered in, and Flask-Babel's wiring.

A visitor gets, in order: the language asked for in the URL (``?lang=fa``, from
the switcher on every page, remembered in a cookie), the one remembered, or the
best match of the browser's ``Accept-Language``. The time zone is the one the
browser reported (``static/timezone.js`` stores it in a cookie) or UTC. A seat's
pages (its page, replay and audits, and the forms they post) then switch to the
seat's own language and time zone (``for_seat``), unless this browser chose another
for that seat: the switcher's ``?lang=`` there is remembered in a cookie whose path
is the seat's link, so it holds for every page and answer of that seat (the moves
typed are read in it too), and for no other seat. Saving the seat's own language
forgets it. A signed-in player's own pages speak the account's language
(``for_account``), unless the URL asks for another for that one view.

Templates, mails and service errors all translate through ``pbem.i18n``; Flask-Babel
is pointed at the same reader and the same catalogs, so ``flask_babel.gettext``
and its Jinja filters agree with everything else.
"""

from __future__ import annotations

import re
from typing import Any

import flask_babel
from flask import Flask, current_app, g, request, url_for

from ..i18n import (
    LANGUAGES,
    Reader,
    install_gettext,
    known_language,
    known_timezone,
    reader,
    set_reader,
    translations,
)

LANGUAGE_COOKIE = "pbem_lang"
#: The language this browser chose for one seat's pages (path: that seat's link).
SEAT_LANGUAGE_COOKIE = "pbem_seat_lang"
TIMEZONE_COOKIE = "pbem_tz"
YEAR = 60 * 60 * 24 * 365


def asked_language() -> str | None:
    """The language the URL asks for (the switcher), if it is one we speak."""
    lang = request.args.get("lang")
    return lang if lang in LANGUAGES else None


def choose_reader() -> Reader:
    """The reader of a request before any seat is known."""
    language = (
        asked_language()
        or request.cookies.get(LANGUAGE_COOKIE)
        or request.accept_languages.best_match(list(LANGUAGES))
    )
    return set_reader(known_language(language), request.cookies.get(TIMEZONE_COOKIE))


def for_player(timezone: str | None) -> Reader:
    """A page about a known player's account, to a browser that may not be theirs yet: in
    the zone the browser reported, else in the player's saved zone (not UTC)."""
    if request.cookies.get(TIMEZONE_COOKIE) or not timezone:
        return reader()
    return set_reader(reader().language, timezone)


def seat_language() -> str | None:
    """The language this browser chose for the seat whose pages these are (the URL's, else
    the one remembered for that seat), or None: the seat's own."""
    chosen = request.cookies.get(SEAT_LANGUAGE_COOKIE)
    return asked_language() or (chosen if chosen in LANGUAGES else None)


def for_account(language: str, timezone: str | None) -> Reader:
    """A signed-in player's own pages speak the account's language, unless this view asks
    for another (as a seat page does), in the zone ``for_player`` chooses."""
    set_reader(asked_language() or language, reader().timezone)
    return for_player(timezone)


def for_seat(seat_reader: Reader) -> Reader:
    """A seat's page speaks the seat's language, unless this browser chose another for it.

    The browser then remembers it, so the game's public page and replay opened
    from there are in the same language.
    """
    g.pbem_seat_reader = seat_reader
    return set_reader(seat_language() or seat_reader.language, seat_reader.timezone)


def _seat_path() -> str | None:
    """The path of this seat's link, which every page of the seat lies under."""
    token = (request.view_args or {}).get("token")
    if not token or "seat.view" not in current_app.view_functions:
        return None
    return url_for("seat.view", token=token)


def remember_for_seat(response: Any, language: str | None) -> Any:
    """Keep ``language`` as this browser's for the seat's pages, or forget the choice
    (``None``, or the seat's own language: the seat's setting speaks again)."""
    path = _seat_path()
    if path is None:
        return response
    seat_reader = g.get("pbem_seat_reader")
    if language in LANGUAGES and (seat_reader is None or language != seat_reader.language):
        secure = not current_app.config.get("PBEM_DEV", False)
        response.set_cookie(
            SEAT_LANGUAGE_COOKIE,
            language,
            max_age=YEAR,
            path=path,
            samesite="Lax",
            secure=secure,
            httponly=True,
        )
    elif request.cookies.get(SEAT_LANGUAGE_COOKIE) is not None:
        response.delete_cookie(SEAT_LANGUAGE_COOKIE, path=path)
    return response


def remember(response: Any, language: str | None = None, timezone: str | None = None) -> Any:
    """Keep a chosen language (and time zone) for the next visits of this browser.

    Like the session cookie, these are ``Secure`` outside development (the app is
    served over https there), so a downgraded connection never carries them.
    """
    secure = not current_app.config.get("PBEM_DEV", False)
    language = language or asked_language()
    if language in LANGUAGES:
        response.set_cookie(
            LANGUAGE_COOKIE, language, max_age=YEAR, samesite="Lax", secure=secure, httponly=True
        )
    if timezone and known_timezone(timezone) == timezone:
        # not HttpOnly: static/timezone.js reads it to know whether to set it
        response.set_cookie(TIMEZONE_COOKIE, timezone, max_age=YEAR, samesite="Lax", secure=secure)
    return response


class _Catalogs(flask_babel.Domain):
    """Flask-Babel's domain, reading the catalogs ``pbem.i18n`` loads (compiled or not)."""

    def get_translations(self) -> Any:
        return translations(reader().language)


def init_app(app: Flask) -> None:
    babel = flask_babel.Babel(
        app,
        locale_selector=lambda: reader().locale,
        timezone_selector=lambda: reader().zone,
    )
    babel.domain_instance = _Catalogs()
    install_gettext(app.jinja_env)
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    app.jinja_env.globals.update(switch_language=switch_language, language_links=language_links)

    # Registered before every other hook, so even a refused CSRF token is told in
    # the visitor's language; reset after, as a worker thread serves many visitors.
    @app.before_request
    def _reader() -> None:
        choose_reader()
        g.pop("_flask_babel", None)

    @app.teardown_request
    def _forget(_exc: BaseException | None) -> None:
        set_reader(None)

    @app.after_request
    def _remember(response: Any) -> Any:
        if asked_language():
            if g.get("pbem_seat_reader") is not None:
                remember_for_seat(response, asked_language())
            return remember(response)
        seat_reader = g.get("pbem_seat_reader")
        if seat_reader is not None and request.cookies.get(LANGUAGE_COOKIE) is None:
            return remember(response, seat_reader.language, seat_reader.timezone)
        return response


#: Query arguments a page may carry into its language links (short, plain names).
_ARG_NAME = re.compile(r"^[a-z][a-z_]{0,19}$")


#: Where the language goes in a switcher's link while it is built (URL-safe as it is).
_SLOT = "pbem-language-slot"


def language_links() -> dict[str, str]:
    """This page's URL in each language, for the switcher: built once with a slot where
    the language goes, not once per language (a ``url_for`` costs as much as ten of a
    page's texts). Each link is what ``switch_language`` makes of its language."""
    url = switch_language(_SLOT)
    if url.count(_SLOT) != 1:  # the slot's text in the page's own arguments: one by one
        return {code: switch_language(code) for code in LANGUAGES}
    head, tail = url.split(_SLOT)
    return {code: f"{head}{code}{tail}" for code in LANGUAGES}


def switch_language(code: str) -> str:
    """This page's URL asking for ``code`` (the switcher's links; GET changes nothing stored).

    Built from the route that matched and its arguments, never from the raw path:
    a path such as ``/\\evil.example/x`` would make a link a browser resolves off-site.
    A page that no route matched, or that answers a form, switches on a page of its own.
    """
    rule, view_args = request.url_rule, request.view_args or {}
    if request.method != "GET" or rule is None or request.routing_exception is not None:
        token = view_args.get("token") if rule is not None else None
        if token and rule is not None and (twin := _get_twin(rule.rule)):
            return url_for(twin, token=token, lang=code)  # a form's answer on its own page
        if token and "seat.view" in current_app.view_functions:
            return url_for("seat.view", token=token, lang=code)
        return _home(code)
    args: dict[str, list[str]] = {
        name: values[:20]
        for name, values in request.args.lists()
        if _ARG_NAME.match(name) and name not in view_args and all(len(v) <= 200 for v in values)
    }
    args["lang"] = [code]
    return url_for(rule.endpoint, **view_args, **args)  # type: ignore[arg-type]


def _get_twin(path: str) -> str | None:
    """The endpoint that GETs the same path as a form's POST (``/u/<token>``), if any: a
    token of one kind of link opens no page of another (``/s/`` refuses it)."""
    for other in current_app.url_map.iter_rules():
        if other.rule == path and "GET" in (other.methods or ()):
            return other.endpoint
    return None


def _home(code: str) -> str:
    """The home page in ``code`` (the viewer of ``pbem view`` has its replay as home)."""
    home = current_app.jinja_env.globals["home_url"]()  # type: ignore[operator]
    return f"{home}?lang={code}"
