"""Render mails from ``templates/mail/<kind>.txt`` and ``.html`` outside any request.

Mail is rendered in the use case's transaction (and later by the scheduler), so
it uses its own Jinja environment rather than Flask's request-bound one.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from ..config import templates_auto_reload
from ..i18n import install_gettext
from ..resources import resource_dir
from ..templating import register_filters


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(resource_dir("templates"))),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Only a developer edits templates under a running server; elsewhere, checking
        # each template's file on every mail is four stat calls a mail for nothing.
        auto_reload=templates_auto_reload(),
    )
    register_filters(env)
    install_gettext(env)
    env.policies["ext.i18n.trimmed"] = True
    return env


def render(kind: str, **context: Any) -> tuple[str, str]:
    """The text and HTML bodies of a mail of ``kind``."""
    env = environment()
    text = env.get_template(f"mail/{kind}.txt").render(**context)
    html = env.get_template(f"mail/{kind}.html").render(**context)
    return text, html
