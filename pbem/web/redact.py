"""Seat tokens never reach a log (docs/architecture.md, invariant 6): request lines are redacted."""

from __future__ import annotations

import logging
import re

TOKEN_IN_PATH = re.compile(r"/s/[A-Za-z0-9_\-\.]+")


def redact(text: str) -> str:
    return TOKEN_IN_PATH.sub("/s/[token]", text)


class RedactTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        record.msg = redact(str(record.msg))
        return True


try:  # gunicorn is the production server; the development server needs none of this
    from gunicorn.glogging import Logger as _GunicornLogger
except ImportError:  # pragma: no cover
    _GunicornLogger = object  # type: ignore[assignment,misc]


class GunicornLogger(_GunicornLogger):  # type: ignore[misc,valid-type]
    """gunicorn's access log with seat tokens redacted from the request line and path."""

    def atoms(self, resp, req, environ, request_time):  # type: ignore[no-untyped-def]
        atoms = super().atoms(resp, req, environ, request_time)
        for key in ("r", "U", "{raw_uri}e"):
            if isinstance(atoms.get(key), str):
                atoms[key] = redact(atoms[key])
        return atoms
