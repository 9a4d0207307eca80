"""``pbem view FILE``: the replay viewer for one record file, with no database at all."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from flask import Flask, redirect, url_for

from ..present import register_filters
from ..resources import resource_dir
from . import csrf, locale, replay


def create_viewer_app(record: bytes) -> Flask:
    """An app that serves the viewer of ``record`` (which must have its seed)."""
    app = Flask(
        __name__,
        template_folder=str(resource_dir("templates")),
        static_folder=str(resource_dir("static")),
        instance_path=tempfile.mkdtemp(prefix="pbem-view-"),
    )
    app.config.update(SECRET_KEY="pbem-view", PBEM_DEV=False)
    register_filters(app.jinja_env)
    locale.init_app(app)
    app.jinja_env.globals.update(csrf_token=csrf.token)
    app.jinja_env.trim_blocks = app.jinja_env.lstrip_blocks = True
    app.register_blueprint(replay.bp)
    with app.app_context():
        digest = replay.store_record(record)

    @app.get("/")
    def index() -> Any:
        return redirect(url_for("replay.record_replay", digest=digest))

    app.jinja_env.globals["home_url"] = lambda: url_for("replay.record_replay", digest=digest)
    app.jinja_env.globals["now"] = _now
    app.register_error_handler(Exception, _error)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    return app


def _now() -> Any:
    from ..clock import SystemClock

    return SystemClock().now()


def _error(error: Exception) -> Any:
    from flask import render_template
    from werkzeug.exceptions import HTTPException

    from ..services.errors import ServiceError

    if isinstance(error, ServiceError):
        return render_template("web/error.html", error=error), error.status
    if isinstance(error, HTTPException):
        return error
    raise error
