"""Render mails from ``templates/mail/<kind>.txt`` and ``.html`` outside any request.

Mail is rendered in the use case's transaction (and later by the scheduler), so
it uses its own Jinja environment rather than Flask's request-bound one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from ..config import templates_auto_reload
from ..i18n import install_gettext, isolate, reader
from ..resources import resource_dir
from ..templating import QuickEnvironment, register_filters


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = QuickEnvironment(
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


#: The context values that are people's names (a digest's entries name the opponent).
NAMES = ("me", "opponent", "mover")


def render(kind: str, **context: Any) -> tuple[str, str]:
    """The text and HTML bodies of a mail of ``kind``.

    To a right-to-left reader, every name is isolated: FSI … PDI in the text part (a line
    that begins with a Latin-script name otherwise runs left to right), ``<bdi>`` in HTML.
    """
    env = environment()
    text = env.get_template(f"mail/{kind}.txt").render(**_names(context, isolate))
    html = env.get_template(f"mail/{kind}.html").render(**_names(context, _bdi))
    return paragraphs(text), html


#: Two or more lines with nothing on them but spaces, between two lines of text.
_GAPS = re.compile(r"\n(?:[ \t]*\n){2,}")


def paragraphs(text: str) -> str:
    """A text mail with one blank line between paragraphs: a template's line whose
    condition does not hold leaves no second one (lines with only spaces count as blank)."""
    return _GAPS.sub("\n\n", text).lstrip("\n")


def _bdi(name: str) -> Any:
    return Markup("<bdi>%s</bdi>") % name if reader().direction == "rtl" and name else name


def _names(context: dict[str, Any], wrap: Callable[[str], Any]) -> dict[str, Any]:
    """``context`` with each name in it wrapped (a right-to-left reader's isolation)."""
    if reader().direction != "rtl":
        return context
    out = dict(context)
    for key in NAMES:
        if isinstance(out.get(key), str):
            out[key] = wrap(out[key])
    if isinstance(out.get("entries"), list):
        out["entries"] = [
            {**e, "opponent": wrap(e["opponent"])}
            if isinstance(e, dict) and isinstance(e.get("opponent"), str)
            else e
            for e in out["entries"]
        ]
    return out
