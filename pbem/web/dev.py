"""The development inbox: every queued mail, readable, with working links. Not in production."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, abort, render_template, request
from markupsafe import Markup, escape

from ..services.mailing import outbox_admin
from ..services.mailing.seat_mail import Written
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


#: The page sizes the inbox offers; the first is the default.
PAGE_SIZES = (50, 20, 100, 200)


@dataclass(frozen=True, slots=True)
class Page:
    """Which mails a page of the inbox shows, newest first: ``first``..``last`` of ``total``."""

    number: int
    size: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.size))

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size

    @property
    def first(self) -> int:
        return min(self.offset + 1, self.total)

    @property
    def last(self) -> int:
        return min(self.offset + self.size, self.total)

    @property
    def newer(self) -> int | None:
        return self.number - 1 if self.number > 1 else None

    @property
    def older(self) -> int | None:
        return self.number + 1 if self.number < self.pages else None


def _page(total: int) -> Page:
    """The page asked for by ``?page=`` and ``?per=``: a size offered, a page that exists."""
    try:
        size = int(request.args.get("per", PAGE_SIZES[0]))
        number = int(request.args.get("page", 1))
    except ValueError:
        abort(400)
    if size not in PAGE_SIZES:
        size = PAGE_SIZES[0]
    page = Page(1, size, total)
    return Page(min(max(number, 1), page.pages), size, total)


@bp.get("/inbox")
def inbox() -> str:
    page = _page(outbox_admin.count(services()))
    messages = outbox_admin.read(services(), page.size, page.offset)
    return render_template(
        "web/dev_inbox.html", messages=messages, page=page, sizes=sorted(PAGE_SIZES)
    )


def _message(message_id: int) -> tuple[OutboxMessage, Written]:
    found = outbox_admin.read_one(services(), message_id)
    if found is None:
        abort(404)
    return found


@bp.get("/inbox/<int:message_id>")
def message(message_id: int) -> Any:
    row, words = _message(message_id)
    return render_template("web/dev_message.html", m=row, w=words, body=linkify(words.text))


@bp.get("/inbox/<int:message_id>/html")
def message_html(message_id: int) -> Response:
    response = Response(_message(message_id)[1].html, mimetype="text/html")
    # mail HTML uses inline styles; it is framed by the dev inbox page of the same site
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"
    )
    response.headers["X-Frame-Options"] = "SAMEORIGIN"
    return response
