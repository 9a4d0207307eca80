"""Is an inbound mail an automatic one (an out-of-office reply, a list's mail, a bounce to
a reply address)? Such mail is not answered (RFC 3834 §2): answering it starts a loop
of two machines, and a refusal of an "I am away" text helps nobody.

Read from the headers alone, which are hostile like the rest (invariant 9): a header
that cannot be read is taken as absent, and nothing here raises.
"""

from __future__ import annotations

import re
from email import policy
from email.message import Message
from email.parser import BytesHeaderParser

#: ``Precedence`` values of mail that is not written by a person to this address (some
#: responders write ``auto_reply``).
_BULK = frozenset({"bulk", "junk", "list", "auto_reply"})
#: Headers some responders add instead of ``Auto-Submitted``.
_AUTORESPONDER_HEADERS = ("X-Autoreply", "X-Autorespond", "X-Autoresponder")

#: The subjects of out-of-office replies as common mail programs write them, in the
#: languages of the server (en, el, fa, uk, zh), at the start of the subject.
_AWAY_SUBJECT = re.compile(
    r"^\s*(?:\[\s*)?(?:"
    r"out of (?:the )?office|automatic reply|auto[- ]?reply|auto[- ]?response|autoresponse"
    r"|auto:|away from (?:the |my )?(?:office|desk)|on vacation|vacation reply"
    r"|αυτόματη απάντηση|εκτός γραφείου"
    r"|پاسخ خودکار|خارج از دفتر"
    r"|автоматична відповідь|автовідповідь|поза офісом|автоматический ответ"
    r"|自动回复|自动答复|自動回覆|自動回复|不在办公室|外出"
    r")",
    re.IGNORECASE,
)


def _header(msg: Message, name: str) -> str | None:
    try:
        value = msg.get(name)
        return None if value is None else str(value)
    except Exception:  # a header the email package cannot decode: as if absent
        return None


def why_automatic(raw: bytes, envelope_sender: str | None = None) -> str | None:
    """Why this mail is automatic (a short reason for the log), or None: a person's mail.

    ``envelope_sender``: the SMTP ``MAIL FROM`` when the mail came that way; empty is the
    null sender ``<>`` of bounces and auto-replies. Without it (IMAP), ``Return-Path: <>``
    says the same.
    """
    try:
        msg = BytesHeaderParser(policy=policy.default).parsebytes(raw)
    except Exception:
        return None
    submitted = _header(msg, "Auto-Submitted")
    if submitted is not None:
        token = submitted.split(";", 1)[0].strip().lower()
        if token and token != "no":
            return f"Auto-Submitted: {token[:40]}"
    precedence = (_header(msg, "Precedence") or "").strip().lower()
    if precedence in _BULK:
        return f"Precedence: {precedence}"
    for name in _AUTORESPONDER_HEADERS:
        if _header(msg, name) is not None:
            return f"{name} header"
    if envelope_sender is not None:
        if envelope_sender.strip("<> ") == "":
            return "null sender"
    elif (_header(msg, "Return-Path") or "x").strip().strip("<>").strip() == "":
        return "null sender (Return-Path)"
    subject = _header(msg, "Subject") or ""
    if _AWAY_SUBJECT.match(subject):
        return "an out-of-office subject"
    return None
