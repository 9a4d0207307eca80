"""Presentation helpers shared by web pages and mails (Jinja filters, time and card text)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from jinja2 import Environment

from .clock import as_utc, iso
from .engine import Card


def utc(moment: datetime | None) -> str:
    """``2026-12-02 09:05 UTC``."""
    if moment is None:
        return ""
    return as_utc(moment).strftime("%Y-%m-%d %H:%M UTC")


def ago(moment: datetime | None, now: datetime) -> str:
    """``3 hours ago``: coarse, as a player reads it."""
    if moment is None:
        return ""
    seconds = int((as_utc(now) - as_utc(moment)).total_seconds())
    if seconds < 60:
        return "just now"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"


def until(moment: datetime | None, now: datetime) -> str:
    """``in 2 days``, ``in 5 hours``, or ``passed``."""
    if moment is None:
        return ""
    seconds = int((as_utc(moment) - as_utc(now)).total_seconds())
    if seconds <= 0:
        return "passed"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"in {n} {unit}{'s' if n != 1 else ''}"
    return "in less than a minute"


def cards_text(cards: tuple[Card, ...] | list[Card]) -> str:
    """``diamond ×2, camel`` for a text picture of a hand or the market."""
    if not cards:
        return "(none)"
    out: list[str] = []
    for card in sorted(set(cards)):
        n = list(cards).count(card)
        out.append(card.word if n == 1 else f"{card.word} ×{n}")
    return ", ".join(out)


def register_filters(env: Environment) -> None:
    filters: dict[str, Any] = {
        "utc": utc,
        "iso": lambda m: iso(m) if m else "",
        "cards_text": cards_text,
    }
    env.filters.update(filters)
    env.globals.update(ago=ago, until=until)
