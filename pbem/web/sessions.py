"""Flask's signed-cookie session, with its serializer built once per key.

Flask builds a new ``URLSafeTimedSerializer`` for every request, before it even looks
for a cookie (a few percent of a move POST's instructions). The serializer holds only
its keys and settings, so the one built for the app's current secret key and fallbacks
serves every request and thread; a changed key builds a new one.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import URLSafeTimedSerializer


class KeptSerializerInterface(SecureCookieSessionInterface):
    """The same sessions and cookies as Flask's own interface."""

    def __init__(self) -> None:
        self._kept: tuple[Any, URLSafeTimedSerializer | None] | None = None

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        key = (app.secret_key, tuple(app.config["SECRET_KEY_FALLBACKS"] or ()))
        kept = self._kept
        if kept is not None and kept[0] == key:
            return kept[1]
        serializer = super().get_signing_serializer(app)
        self._kept = (key, serializer)
        return serializer
