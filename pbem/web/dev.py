"""The development inbox: every queued mail, readable, with working links. Not in production."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, abort, render_template
from markupsafe import Markup, escape

from ..mail import outbox
from ..store.models import OutboxMessage
from .context import services

bp = Blueprint("dev", __name__, url_prefix="/dev")
URL = re.compile(r"https?://[^\s<>\"]+")


def linkify(text: str) -> Markup:
    out, last = [], 0
    for m in URL.finditer(text):
        out.append(escape(text[last : m.start()]))
        out.append(Markup('<a href="{0}">{0}</a>').format(m.group(0)))
        last = m.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)


@bp.get("/inbox")
def inbox() -> str:
    with services().db.read() as session:
        messages = outbox.recent(session)
        return render_template("web/dev_inbox.html", messages=messages)


def _message(message_id: int) -> OutboxMessage:
    with services().db.read() as session:
        row = session.get(OutboxMessage, message_id)
    if row is None:
        abort(404)
    return row


@bp.get("/inbox/<int:message_id>")
def message(message_id: int) -> Any:
    row = _message(message_id)
    return render_template("web/dev_message.html", m=row, body=linkify(row.text_body))


@bp.get("/inbox/<int:message_id>/html")
def message_html(message_id: int) -> Response:
    response = Response(_message(message_id).html_body, mimetype="text/html")
    # mail HTML uses inline styles; it is framed by the dev inbox page of the same site
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"
    )
    response.headers["X-Frame-Options"] = "SAMEORIGIN"
    return response
