"""The Flask app: ``create_app()`` builds it; blueprints per area, thin views over services.

The same factory builds the replay viewer of ``pbem view FILE`` (``record=...``): one
record, no database, no configuration.
"""

from __future__ import annotations

import gc
import tempfile
from pathlib import Path
from typing import Any

from flask import Flask, Response, redirect, render_template, request, send_from_directory, url_for
from flask.templating import Environment as FlaskEnvironment
from werkzeug.exceptions import HTTPException

from ..clock import SystemClock
from ..config import Config, from_env
from ..i18n import lazy_gettext as _l
from ..redact import install as redact_logs
from ..redact import mask_routes
from ..resources import resource_dir
from ..services.core.env import Env
from ..services.core.errors import RateLimited, ServiceError, Unavailable
from ..services.play import game_clock, ratings
from ..store.db import DatabaseUnavailable
from ..templating import QuickGlobals, register_filters
from . import (
    api,
    bot_api,
    csrf,
    dev,
    download,
    events,
    fragments,
    inputs,
    locale,
    pages,
    players,
    private,
    replay,
    seat,
)
from .redact import secret_routes
from .sessions import KeptSerializerInterface

#: Sent with every answer unless the view set them (lowered name, name, value).
_SECURITY_HEADERS = tuple(
    (name.lower(), name, value)
    for name, value in (
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),  # links carry seat tokens
        ("X-Frame-Options", "DENY"),
    )
)
_HSTS = (
    (
        "strict-transport-security",
        "Strict-Transport-Security",
        "max-age=31536000; includeSubDomains",
    ),
)


class _Jinja(QuickGlobals, FlaskEnvironment):
    """Flask's Jinja environment, with template globals whose keys a
    ``{% from ... import %}`` checks in C (``pbem.templating.QuickGlobals``)."""


class _Flask(Flask):
    jinja_environment = _Jinja


def create_app(
    config: Config | None = None,
    env: Env | None = None,
    check_schema: bool = True,
    *,
    record: bytes | None = None,
) -> Flask:
    """The server's app on ``env`` (or one built from ``config``, or from the environment);
    with ``record``, the viewer of that one record file instead (which must have its seed):
    no database and no settings, only the replay pages of that record."""
    if record is not None:
        return _viewer_app(record)
    if env is None:
        env = Env.from_config(config or from_env())
    config = env.config
    if check_schema:
        env.db.check_schema()
    app = _Flask(
        __name__,
        template_folder=str(resource_dir("templates")),
        static_folder=str(resource_dir("static")),
        instance_path=str(config.instance_path),
    )
    app.config.update(
        SECRET_KEY=config.secret_key,
        MAX_CONTENT_LENGTH=256 * 1024,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=not config.dev_mode,
        PERMANENT_SESSION_LIFETIME=60 * 60 * 24 * 90,
        PBEM_DEV=config.dev_mode,
    )
    app.extensions["pbem"] = env
    app.session_interface = KeptSerializerInterface()
    _converters(app)
    register_filters(app.jinja_env)
    app.jinja_env.globals.update(
        csrf_token=csrf.token,
        now=env.clock.now,
        home_url=lambda: url_for("pages.home"),
        # how to check a record, with this instance's own package (pbem.wheel)
        download_url=env.download_url,
        check_commands=env.check_commands,
        shown_rating=ratings.shown,  # never below 0 (the ratings page explains it)
        rating_spread=ratings.spread,  # the ± after mu
        clock_limits=game_clock.CLOCK_LIMITS,  # a form's bounds are the service's own
        clock_defaults=game_clock.GameClock(),
    )
    fragments.init_app(app)  # the seat page's kept pieces and links
    private.init_app(app)  # a link with a token makes its answer private
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True

    locale.init_app(app)  # first hook: every answer, even a refusal, in the reader's language
    _icon(app)
    for blueprint in (
        pages.bp,
        seat.bp,
        replay.bp,
        players.bp,
        api.bp,
        bot_api.bp,
        download.bp,
        events.bp,
    ):
        app.register_blueprint(blueprint)
    if config.dev_mode:
        app.register_blueprint(dev.bp)

    @app.before_request
    def _csrf() -> None:
        # the API has its own tokens; a one-click unsubscribe (RFC 8058) comes from a mail
        # provider, with no cookie, and can only ever mean less mail
        if request.method == "POST" and not request.path.startswith(("/api/", "/u/")):
            csrf.check()

    security = _SECURITY_HEADERS if config.dev_mode else _SECURITY_HEADERS + _HSTS

    @app.after_request
    def _headers(response: Any) -> Any:
        # Each header unless the view set it already: one pass over the headers, where
        # a ``setdefault`` apiece scanned them all again, lowering every name each time.
        headers = response.headers
        present = {name.lower() for name, _value in headers}
        for lowered, name, value in security:
            if lowered not in present:
                headers.add(name, value)
        if private.private():  # links, tokens, a signed-in person's pages: never kept
            headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(ServiceError)
    def _service_error(error: ServiceError) -> Any:
        if request.path.startswith("/api/"):
            response = app.make_response(api.error_json(error))
        else:
            response = app.make_response(
                (render_template("web/error.html", error=error), error.status)
            )
        retry_after = getattr(error, "retry_after", None)
        if isinstance(error, RateLimited) and retry_after:
            response.headers["Retry-After"] = str(retry_after)
        return response

    @app.errorhandler(DatabaseUnavailable)
    def _database_unavailable(_error: DatabaseUnavailable) -> Any:
        response = app.make_response(_service_error(Unavailable()))
        response.headers["Retry-After"] = "30"
        return response

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException) -> Any:
        """Werkzeug's refusals (no such page, too large, a route's number out of range…)
        told like the services' own: a page in the reader's language, or JSON for the API."""
        status = error.code or 500
        refusal = ServiceError(HTTP_MESSAGES.get(status, HTTP_MESSAGES[400]))
        refusal.status = status
        response = app.make_response(_service_error(refusal))
        if status == 405 and error.valid_methods:  # type: ignore[attr-defined]
            response.headers["Allow"] = ", ".join(error.valid_methods)  # type: ignore[attr-defined]
        return response

    # no log line of this process carries a secret of these routes (pbem.redact)
    redact_logs()
    mask_routes(secret_routes(app.url_map))
    if config.trusted_proxies:  # the client's address, not nginx's, goes to the access log
        from werkzeug.middleware.proxy_fix import ProxyFix

        n = config.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n)  # type: ignore[method-assign]
    return app


def _converters(app: Flask) -> None:
    """Every route's number and text segment is bounded as the URL is matched, and a
    secret is one of ``<secret:…>`` (masked in every log: ``web.redact``)."""
    app.url_map.converters.update(
        int=inputs.BoundedInt, default=inputs.BoundedString, secret=inputs.Secret
    )


def _icon(app: Flask) -> None:
    """``/favicon.ico``, where browsers look for a site's icon (static/favicon.ico)."""

    def favicon() -> Response:
        assert app.static_folder is not None
        return send_from_directory(
            app.static_folder, "favicon.ico", mimetype="image/x-icon", max_age=7 * 86400
        )

    app.add_url_rule("/favicon.ico", "favicon", favicon)


def _viewer_app(record: bytes) -> Flask:
    """``pbem view FILE``: the replay blueprint alone, over a throw-away instance folder.

    A ``ServiceError`` from a record that is not one propagates, so the command can say so.
    """
    app = _Flask(
        __name__,
        template_folder=str(resource_dir("templates")),
        static_folder=str(resource_dir("static")),
        instance_path=tempfile.mkdtemp(prefix="pbem-view-"),
    )
    app.config.update(SECRET_KEY="pbem-view", PBEM_DEV=False)
    _converters(app)
    register_filters(app.jinja_env)
    locale.init_app(app)
    _icon(app)
    app.jinja_env.globals.update(csrf_token=csrf.token)
    fragments.init_app(app)
    app.jinja_env.trim_blocks = app.jinja_env.lstrip_blocks = True
    app.register_blueprint(replay.bp)
    with app.app_context():
        digest = replay.store_record(record)

    @app.get("/")
    def index() -> Any:
        return redirect(url_for("replay.record_replay", digest=digest))

    app.jinja_env.globals["home_url"] = lambda: url_for("replay.record_replay", digest=digest)
    app.jinja_env.globals["now"] = SystemClock().now
    app.register_error_handler(Exception, _viewer_error)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    return app


def _viewer_error(error: Exception) -> Any:
    if isinstance(error, ServiceError):
        return render_template("web/error.html", error=error), error.status
    if isinstance(error, HTTPException):
        return error
    raise error


#: What a visitor reads for each of werkzeug's refusals; anything else reads as a 400.
HTTP_MESSAGES: dict[int, Any] = {
    400: _l(
        "The server could not read that request: a number or a text in it is out of "
        "range, or it is not in the expected form."
    ),
    404: _l("There is no such page."),
    405: _l("That page cannot be used that way: follow a link or a button instead."),
    413: _l("That upload is too large."),
    415: _l("The server could not read that request: it is not in the expected form."),
    429: _l("Too many requests from here; try again in a few minutes."),
}


def warm_up(app: Flask) -> None:
    """Load the catalogs, compile every template and open a database connection, up front;
    then freeze what is loaded out of the garbage collector's reach.

    gunicorn calls this in each new worker (deploy/gunicorn.conf.py): otherwise the
    first seat page a fresh worker serves compiles its templates (about 100 ms), and
    with kept-alive connections that tail showed in every worker after each restart.

    The freeze: a worker holds about 125,000 objects that live as long as it does
    (modules, templates, catalogs, compiled statements), and every full pass of the
    cyclic collector walked them all, about 90 ms in which the worker answered
    nothing, so each one showed in the latency tail. Frozen, a full pass walks
    only what came later, mostly the replay cache (5 objects per cached move).
    """
    from ..i18n import LANGUAGES, translations
    from ..mail.compose import environment

    for language in LANGUAGES:  # the catalogs too: a checkout compiles each .po in memory
        translations(language)
    for jinja, folder in ((app.jinja_env, "web/"), (environment(), "mail/")):
        for name in jinja.list_templates():
            if name.startswith(folder):
                jinja.get_template(name)
    env: Env = app.extensions["pbem"]
    with env.db.engine.connect():
        pass
    gc.collect()  # what is garbage now should not be frozen with the rest
    gc.freeze()
