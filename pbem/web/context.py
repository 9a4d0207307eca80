"""The use cases' environment of the running app, for views."""

from __future__ import annotations

from flask import current_app

from ..services.core.env import Env


def services() -> Env:
    return current_app.extensions["pbem"]
