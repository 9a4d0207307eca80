"""Reading a reply mail: its id, its reply token, and the move line in its text.

Nothing here trusts the sender: ``From`` is kept only to answer a mail whose
token is no good; the token in the reply address is what authenticates.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr
from typing import Any

import html2text
from mailparser_reply import EmailReplyParser
from mailparser_reply.constants import MAIL_LANGUAGES

from ..i18n import lazy_gettext as _l

Predicate = Callable[[str], bool]

#: The languages whose reply headers ("On … wrote:", "Von: … Gesendet: …") the reply
#: parser knows; English is always among them.
REPLY_LANGUAGES = tuple(lang for lang in MAIL_LANGUAGES if lang != "david")
_PARSER = EmailReplyParser(languages=list(REPLY_LANGUAGES))
#: NUL and other control characters (not tab or newline) never reach the database.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SIGNATURE = re.compile(r"^(--|—|-- )\s*$")
#: "Sent from my iPhone" and the like: the reply parser's own list for every language it
#: knows, plus the English forms it misses ("Sent with Proton Mail", "Sent from Mail for
#: Windows", "Sent from Yahoo Mail for iPhone").
_SENT_FROM = re.compile(
    "^(?:"
    + "|".join(
        f"(?:{MAIL_LANGUAGES[lang]['sent_from']})"
        for lang in REPLY_LANGUAGES
        if MAIL_LANGUAGES[lang].get("sent_from")
    )
    + r"|sent (?:from|with|via) (?:my\b|(?:\S+ )?(?:mail|outlook|yahoo|proton|gmail|aol)\b))",
    re.I,
)
#: How many lines of text before the quote may precede the move ("Hi,", "Hello Bob").
MOVE_WITHIN = 3
#: A reply's line is read up to this many characters: a move is never that long, a note
#: is cut to 500, and the patterns that look for the server's text try every position.
LINE_LIMIT = 1000
#: Supplement for what the reply parser misses, only directly above the server's own text:
#: a separator line ("-----Ursprüngliche Nachricht-----", "---- On … wrote ----",
#: "------------------ 原始邮件 ------------------", "________") ...
_SEPARATOR = re.compile(r"^(?:[-_=*]{2,}.*[-_=*]{2,}|[-_=]{5,}|(?:[-_*]\s?){3,})$")
#: ... a header line in any language ("Von: …", "*From:* …", "发件人: …", "Lähettäjä: …") ...
_HEADER_LINE = re.compile(r"^\*?[^\W\d_][^:：]{0,30}?\*?\s*[:：]\*?(?:\s|$)")
#: ... or an attribution that ends with a colon ("… kirjoitti:", "… 写道：", "wrote:").
_ATTRIBUTION_END = re.compile(r"[:：]\s*[\u200b-\u200f\u202a-\u202e]*$")
#: The paragraph above the quote is the attribution only if it is this short.
_ATTRIBUTION_LINES = 6
#: A quoted line, as clients mark it: ``>`` (and the full-width ``＞``), ``»`` or ``›`` before
#: a space or another mark (not German quotes, ``»so«``), ``:`` before a space (Gnus'
#: ``message-yank-prefix``; never a move, and a colon within a line is not a mark), and up
#: to three capitals before ``>`` (The Bat!'s initials, ``JB> ``).
_QUOTED = re.compile(r"^(?:[>＞]|[»›](?=[\s»›>＞]|$)|:(?=\s|$)|[A-Z]{1,3}>(?=[\s>]|$))")


def quoted(line: str) -> bool:
    """Whether a (stripped) line of a reply is quoted from the mail it answers."""
    return _QUOTED.match(line) is not None


@dataclass(frozen=True, slots=True)
class Inbound:
    message_id: str
    sender: str | None
    recipients: tuple[str, ...]
    subject: str
    text: str | None
    problem: Any  # why the mail cannot be read as a reply, in plain words (lazy: translated)


def clean(text: str) -> str:
    return _CONTROL.sub("", text)


#: html2text escapes what Markdown would read as a list or a heading; a reply is not Markdown.
_MARKDOWN_ESCAPE = re.compile(r"\\([-+#.!\\`*_\[\]()>])")


def html_to_text(html: str) -> str:
    """The text of an HTML reply as its reader saw it (html2text, without Markdown).

    Blocks and ``<br>`` break lines, source newlines are spaces, style and script are
    dropped, a blockquote's lines start with ``>``, and a link keeps its URL (so a
    quoted seat link stays visible to the note's checks).
    """
    converter = html2text.HTML2Text()
    converter.body_width = 0  # never wrap: a move must stay on its line
    converter.ignore_images = True
    converter.ignore_emphasis = True
    converter.ignore_tables = True
    converter.unicode_snob = True
    converter.single_line_break = False
    return _MARKDOWN_ESCAPE.sub(r"\1", converter.handle(html))


def parse_inbound(
    raw: bytes, envelope_rcpts: list[str] | tuple[str, ...] = (), max_bytes: int = 256 * 1024
) -> Inbound:
    """Parse a raw mail; never raises on bad input, it reports a ``problem`` instead."""
    fallback_id = "<sha256." + hashlib.sha256(raw).hexdigest() + "@inbound>"
    try:
        msg: EmailMessage = BytesParser(policy=policy.default).parsebytes(raw)
    except Exception:  # the email package is lenient; this is a last resort
        return Inbound(
            fallback_id, None, tuple(envelope_rcpts), "", None, "the mail could not be read"
        )
    message_id = clean(str(msg.get("Message-ID") or "")).strip()[:300] or fallback_id
    sender = clean(parseaddr(str(msg.get("From") or ""))[1]) or None
    header_rcpts = [
        a
        for _, a in getaddresses(
            [
                str(v)
                for h in ("Delivered-To", "X-Original-To", "To", "Cc")
                for v in msg.get_all(h, [])
            ]
        )
    ]
    recipients = tuple(dict.fromkeys(clean(a) for a in [*envelope_rcpts, *header_rcpts]))
    subject = clean(str(msg.get("Subject") or ""))[:300]

    def unreadable(problem: Any) -> Inbound:
        return Inbound(message_id, sender, recipients, subject, None, problem)

    if len(raw) > max_bytes:
        return unreadable(
            _l(
                "the mail is larger than %(size)s KB: send just the "
                "move, as plain text, without attachments",
                size=max_bytes // 1024,
            )
        )
    text = body_text(msg)
    if isinstance(text, str):
        text = clean(text)
    if not isinstance(text, str) or not text.strip():
        return unreadable(_l("the mail has no text in it: write the move as plain text"))
    return Inbound(message_id, sender, recipients, subject, text, None)


def reply_tokens(addresses: tuple[str, ...] | list[str], reply_address: str) -> list[str]:
    """The tokens of the addresses of the form ``<local>+<token>@<domain>`` of the reply address."""
    local, _, domain = reply_address.lower().partition("@")
    out = []
    for address in addresses:
        a_local, _, a_domain = address.lower().strip("<> ").partition("@")
        if a_domain == domain and a_local.startswith(local + "+"):
            out.append(a_local[len(local) + 1 :])
    return out


def body_text(msg: EmailMessage) -> str | None:
    """The plain part, or the HTML part's text when the plain part is missing or blank."""
    text = None
    for kind in ("plain", "html"):
        try:
            body = msg.get_body(preferencelist=(kind,))
            content = body.get_content() if body is not None else None
        except (LookupError, UnicodeError, KeyError, AttributeError):
            continue
        if not isinstance(content, str):
            continue
        text = html_to_text(content) if kind == "html" else content
        if text.strip():
            return text
    return text


def _reply_part(text: str) -> tuple[str, bool]:
    """The newest reply, before the first quote header the reply parser recognises, and
    whether it found one."""
    replies = _PARSER.read(text).replies
    # A bottom-posted reply starts with the header: the parser's first part is then the
    # whole mail, less that header; its quoted lines are skipped below.
    if not replies:
        return text, False
    return replies[0].full_body, len(replies) > 1


def _without_attribution(lines: list[str], is_move: Predicate) -> list[str]:
    """Drop the attribution paragraph just above the server's own text, if it is one.

    It is: short, and ends with a colon, a separator, or a block of header lines. The
    move is never dropped with it.
    """
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    start = end
    while start and lines[start - 1].strip() and end - start < _ATTRIBUTION_LINES:
        start -= 1
    if start and lines[start - 1].strip():
        return lines  # a long paragraph: the player's words, not an attribution
    block = [line.strip().strip("\u200e\u200f\u202a\u202b\u202c") for line in lines[start:end]]
    if not block:
        return lines
    looks = (
        _ATTRIBUTION_END.search(block[-1])
        or _SEPARATOR.match(block[-1])
        or _SEPARATOR.match(block[0])
        or sum(bool(_HEADER_LINE.match(b)) for b in block) >= 2
    )
    if not looks:
        return lines
    for i in range(start, end):
        if is_move(lines[i].strip()):
            start = i + 1
    return lines[:start]


def _greeting(line: str, before: list[str], is_move: Predicate) -> bool:
    """A short line that reads like a line of the server's mail ("Hello,", "你好：") but comes
    before any move, near the top, with no link or address in it: the player's greeting."""
    written = [b for b in before if b and not quoted(b)]
    return (
        len(written) < MOVE_WITHIN - 1
        and len(line) <= 40
        and not re.search(r"[/@]", line)
        and not any(is_move(b) for b in written)
    )


def split_reply(
    text: str, *, is_move: Predicate | None = None, is_ours: Predicate | None = None
) -> tuple[str, str | None]:
    """The move line and the note of a reply.

    The reply parser (mail-parser-reply) cuts the quoted original at the headers it
    knows. Then, line by line: quoted lines (``>``, ``»``, ``: ``, ``JB>``: ``quoted``)
    before the move are skipped and end the note after it; a signature ends the text;
    ``is_ours`` marks a line of the server's own mail, which ends the text whatever the
    client did to quote it (with the attribution paragraph just above it). The move is
    the first of the first few lines that ``is_move`` accepts (so "Hi," before it is
    skipped), or else the first line, so a refusal can quote what was read. The note is
    the lines after the move.
    """
    accepts: Predicate = is_move or (lambda _line: False)
    ours: Predicate = is_ours or (lambda _line: False)
    lines: list[str] = []
    part, quote_follows = _reply_part(text)
    for raw_line in part.splitlines():
        line = raw_line.strip()[:LINE_LIMIT]
        if _SIGNATURE.match(raw_line.rstrip()) or _SENT_FROM.match(line):
            quote_follows = False
            break
        if not quoted(line) and ours(line) and not _greeting(line, lines, accepts):
            quote_follows = True
            break
        lines.append(line)
    if quote_follows:  # what the parser left of the quote's header ("-----Original…", "* * *")
        lines = _without_attribution(lines, accepts)
    candidates = [i for i, line in enumerate(lines) if line and not quoted(line)]
    if not candidates:
        return "", None
    move_at = next((i for i in candidates[:MOVE_WITHIN] if accepts(lines[i])), candidates[0])
    note: list[str] = []
    for line in lines[move_at + 1 :]:
        if quoted(line):
            break
        if line:
            note.append(line)
    return lines[move_at], " ".join(note).strip() or None
