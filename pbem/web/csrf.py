"""CSRF for every form POST: a random token in the signed session cookie, echoed by the form."""

from __future__ import annotations

import hmac
import secrets

from flask import request, session

from ..i18n import lazy_gettext as _l
from ..services.core.errors import ServiceError


class CsrfError(ServiceError):
    status = 400

    def __init__(self) -> None:
        super().__init__(
            _l(
                "This form has expired or did not come from this site. "
                "Reload the page and try again."
            )
        )


def token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def check() -> None:
    expected = session.get("csrf")
    given = request.form.get("csrf_token", "")
    if not expected or not hmac.compare_digest(str(expected), given):
        raise CsrfError()
