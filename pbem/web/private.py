"""Which answers no cache may keep: one decision, made as each answer leaves the app.

A seat link or a sign-in link is a capability (docs/architecture.md, invariant 6), and
a signed-in person's pages name them and list their games. Such an answer is sent with
``Cache-Control: no-store``, so that neither a shared cache nor the browser's history
keeps it. An answer is private when

- its address is one: a seat's pages (``/s/``), the API (its seat token is a header),
  a sign-in link, the development inbox (every mail with its links);
- it carries one: a page or a redirect that built a link with a token (``mark``, from
  every ``url_for`` and every kept URL of ``fragments``);
- a person is signed in: every page names them in its header, and "my games" lists
  their seat links.

Only the site's own files (its styles, scripts and icon) stay cacheable for everyone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, g, request, session

#: Paths whose every answer is private (the address itself may be a capability).
PRIVATE_PATHS = ("/s/", "/api/", "/signin/", "/dev/")
#: The route argument that is a capability: a seat's or a sign-in link's token.
TOKEN = "token"
#: Answers that are the same bytes for everyone, and may be kept.
PUBLIC_FILES = frozenset({"static", "favicon"})


def init_app(app: Flask) -> None:
    """Every URL the app builds with a token marks its answer private."""

    @app.url_defaults
    def _links_with_tokens(_endpoint: str, values: dict[str, Any]) -> None:
        mark(values)


def mark(values: Mapping[str, Any]) -> None:
    """The answer being built carries a link made from ``values`` (a route's arguments)."""
    if TOKEN in values:
        g.pbem_private = True


def private() -> bool:
    """Whether the current request's answer must not be stored."""
    if request.endpoint in PUBLIC_FILES:
        return False
    return (
        request.path.startswith(PRIVATE_PATHS)
        or TOKEN in (request.view_args or {})
        or g.get("pbem_private", False)
        or session.get("player") is not None
    )
