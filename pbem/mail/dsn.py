"""Reading a bounce: a delivery status notification (RFC 3464) or a plain one.

A DSN is a ``multipart/report`` whose ``message/delivery-status`` part holds one block per
recipient, each with an ``Action`` (failed, delayed, delivered, relayed, expanded) and a
``Status`` (``5.x.x`` permanent, ``4.x.x`` temporary). Only a permanent failure bounces
the mail; a delay is a warning that the sending server still tries. A mail to a bounce
address with no such part is read as a plain bounce, unless it shows the marks of an
out-of-office answer, which RFC 3834 sends to the same return path.
"""

from __future__ import annotations

import re
from email import policy
from email.message import Message
from email.parser import BytesParser
from typing import Literal

Verdict = Literal["failed", "delayed", "other", "auto-reply", "plain"]

#: Out-of-office marks of an automatic answer that is not a bounce.
_AUTO_HEADERS = ("X-Autoreply", "X-Autorespond")
_AUTO_SUBJECT = re.compile(
    r"out of (?:the )?office|automatic reply|auto(?:matic)?[- ]?(?:reply|response)|"
    r"\bvacation\b|abwesenheit|absence|réponse automatique",
    re.I,
)


def _blocks(part: Message) -> list[Message]:
    """The per-message and per-recipient blocks of a ``message/delivery-status`` part."""
    payload = part.get_payload()
    if isinstance(payload, list):
        return [p for p in payload if isinstance(p, Message)]
    text = payload if isinstance(payload, str) else ""
    parser = BytesParser(policy=policy.compat32)
    return [parser.parsebytes(b.encode("utf-8", "replace") + b"\n") for b in text.split("\n\n")]


#: Control characters (escape sequences among them) never reach the outbox's record.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


def verdict(raw: bytes) -> Verdict:
    """What a mail to a bounce address says of the mail it names; never raises (a mail
    too deeply nested to read is a plain bounce)."""
    try:
        return _verdict(BytesParser(policy=policy.compat32).parsebytes(raw))
    except Exception:  # RecursionError too (deep nesting): a last resort
        return "plain"


def _verdict(msg: Message) -> Verdict:
    actions: list[str] = []
    found = False
    for part in msg.walk():
        if part.get_content_type() != "message/delivery-status":
            continue
        found = True
        for block in _blocks(part):
            action = str(block.get("Action") or "").strip().lower()
            status = str(block.get("Status") or "").strip()
            if action == "failed" or (not action and status.startswith("5")):
                actions.append("failed")
            elif action == "delayed" or status.startswith("4"):
                actions.append("delayed")
            elif action:
                actions.append("other")
    if found:
        for kind in ("failed", "delayed"):
            if kind in actions:
                return kind
        return "other"
    subject = str(msg.get("Subject") or "")
    if any(msg.get(h) for h in _AUTO_HEADERS) or _AUTO_SUBJECT.search(subject):
        return "auto-reply"
    return "plain"


def diagnostic(raw: bytes) -> str:
    """The failed recipient's status and diagnostic, for the outbox's record: short, on
    one line, without control characters (the operator's terminal shows it)."""
    try:
        return _CONTROL.sub(" ", _diagnostic(BytesParser(policy=policy.compat32).parsebytes(raw)))
    except Exception:
        return ""


def _diagnostic(msg: Message) -> str:
    for part in msg.walk():
        if part.get_content_type() != "message/delivery-status":
            continue
        for block in _blocks(part):
            if str(block.get("Action") or "").strip().lower() == "failed":
                words = [str(block.get(h) or "").strip() for h in ("Status", "Diagnostic-Code")]
                return " ".join(w for w in words if w)[:500]
    return ""
