"""The web app's part of ``pbem.redact``: its secret-bearing routes, read from its URL map,
and gunicorn's logger, which turns the redaction on in gunicorn's processes."""

from __future__ import annotations

import re
from typing import Any

from werkzeug.routing import Map, Rule

from .. import redact
from .inputs import Secret

#: A variable part of a rule: ``<name>``, ``<conv:name>`` or ``<conv(args):name>``.
_VARIABLE = re.compile(r"<(?:[A-Za-z_]\w*(?:\([^)]*\))?:)?([A-Za-z_]\w*)>")


def secret_routes(url_map: Map) -> list[str]:
    """A pattern per route that carries a ``<secret:…>``: its path up to the secret, the
    secret as its one group (the same pattern once, for the many routes under ``/s/``)."""
    patterns = {_pattern(rule) for rule in url_map.iter_rules()}
    return sorted(p for p in patterns if p is not None)


def _pattern(rule: Rule) -> str | None:
    converters = rule._converters  # the rule's converter of each variable, by name
    pattern, at = "", 0
    for variable in _VARIABLE.finditer(rule.rule):
        pattern += re.escape(rule.rule[at : variable.start()])
        if isinstance(converters.get(variable.group(1)), Secret):
            return pattern + f"({redact.SECRET_IN_PATH})"
        pattern += r"[^/?#\s]+"
        at = variable.end()
    return None


try:  # gunicorn is the production server; the development server needs none of this
    from gunicorn.glogging import Logger as _GunicornLogger
except ImportError:  # pragma: no cover
    _GunicornLogger = object  # type: ignore[assignment,misc]


class GunicornLogger(_GunicornLogger):
    """gunicorn's logger (``deploy/gunicorn.conf.py``), with every record of its access and
    error logs redacted from the start (the app adds its routes as each worker loads it)."""

    def setup(self, cfg: Any) -> None:
        redact.install()
        super().setup(cfg)
