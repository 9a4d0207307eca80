"""Seat tokens never reach a log (DESIGN.md invariant 6): request lines are redacted."""

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
