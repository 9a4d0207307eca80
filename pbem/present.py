"""Presentation helpers shared by web pages and mails (Jinja filters, time and card text)."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from babel.dates import format_date, format_datetime, format_time, format_timedelta
from babel.lists import format_list
from jinja2 import Environment

from .clock import as_utc, iso
from .engine import Card, Exchange, Sell, TakeCamels, TakeGood, format_move
from .i18n import LANGUAGES, Reader, gettext, reader
from .i18n.notation import vocabulary
from .i18n.words import card_label, card_list, move_text, tell


def utc(moment: datetime | None) -> str:
    """``2026-12-02 09:05 UTC``."""
    if moment is None:
        return ""
    return as_utc(moment).strftime("%Y-%m-%d %H:%M UTC")


def when(moment: datetime | None) -> str:
    """``2 Dec 2026, 12:35 (GMT+03:30)``: in the reader's language and time zone."""
    if moment is None:
        return ""
    return _when(as_utc(moment), reader())


@lru_cache(maxsize=8192)
def _when(moment: datetime, r: Reader) -> str:
    """Kept: a page shows the times of its last 12 moves, and those rarely change."""
    local = moment.astimezone(r.zone)
    pattern = r.locale.datetime_formats["medium"]
    text = str(pattern).format(
        format_time(local, "short", locale=r.locale), format_date(local, "medium", locale=r.locale)
    )
    zone = "UTC" if r.timezone == "UTC" else format_datetime(local, "ZZZZ", locale=r.locale)
    return f"{text} ({zone})"


def ago(moment: datetime | None, now: datetime) -> str:
    """``3 hours ago``: coarse, as a player reads it, in the reader's language."""
    if moment is None:
        return ""
    delta = as_utc(moment) - as_utc(now)
    if delta.total_seconds() > -60:
        return gettext("just now")
    return format_timedelta(delta, add_direction=True, threshold=1, locale=reader().locale)


def until(moment: datetime | None, now: datetime) -> str:
    """``in 2 days``, ``in 5 hours``, or ``passed``."""
    if moment is None:
        return ""
    delta = as_utc(moment) - as_utc(now)
    if delta.total_seconds() <= 0:
        return gettext("passed")
    if delta.total_seconds() < 60:
        return gettext("in less than a minute")
    return format_timedelta(delta, add_direction=True, threshold=1, locale=reader().locale)


def cards_text(cards: tuple[Card, ...] | list[Card]) -> str:
    """``diamond ×2, camel`` for a text picture of a hand or the market."""
    if not cards:
        return gettext("(none)")
    return _cards_text(tuple(sorted(cards)), reader().language)


@lru_cache(maxsize=4096)
def _cards_text(cards: tuple[Card, ...], language: str) -> str:
    """Kept per language (``language`` is the key; the text is the reader's)."""
    out: list[str] = []
    for card in sorted(set(cards)):
        n = cards.count(card)
        out.append(card_label(card) if n == 1 else f"{card_label(card)} ×{n}")
    return format_list(out, locale=reader().locale)


def register_filters(env: Environment) -> None:
    filters: dict[str, Any] = {
        "utc": utc,
        "when": when,
        "iso": lambda m: iso(m) if m else "",
        "cards_text": cards_text,
        "card_label": card_label,
        "tell": tell,
        "move_text": move_text,
        "card_list": card_list,
    }
    env.filters.update(filters)
    env.globals.update(
        ago=ago,
        until=until,
        reader=reader,
        languages=LANGUAGES,
        common_zones=COMMON_ZONES,
        move_examples=move_examples,
        move_example=move_text,
        notation_words=notation_words,
    )


#: Offered in time-zone fields (any IANA zone may be typed): where our players live.
COMMON_ZONES = (
    "UTC",
    "Europe/Athens",
    "Asia/Nicosia",
    "Asia/Tehran",
    "Europe/Kyiv",
    "Asia/Shanghai",
    "Asia/Hong_Kong",
    "Asia/Taipei",
    "Asia/Singapore",
    "Europe/London",
    "Europe/Berlin",
    "Europe/Paris",
    "Europe/Warsaw",
    "Europe/Istanbul",
    "Asia/Dubai",
    "Asia/Kolkata",
    "Asia/Tokyo",
    "Australia/Sydney",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Toronto",
    "America/Sao_Paulo",
)

_EXAMPLES = (
    TakeGood(Card.DIAMOND),
    TakeCamels(),
    Exchange((Card.SPICE, Card.SPICE), (Card.CAMEL, Card.CAMEL)),
    Sell(Card.CLOTH, 3),
)


def move_examples() -> str:
    """``take diamond · camels · …`` in the reader's notation (a field's placeholder)."""
    vocab = vocabulary(reader().language)
    return " · ".join(format_move(move, vocab) for move in _EXAMPLES)


def notation_words() -> dict[str, Any]:
    """How the reader's language writes moves, for the card-clicking script of the seat page."""
    vocab = vocabulary(reader().language)
    return {
        "spelled": dict(vocab.spelled),
        "names": {card.word: name for card, name in vocab.names.items()},
        "digits": vocab.digits,
    }
