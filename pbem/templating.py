"""What the templates of pages and mails share: Jinja filters, times, card and move texts,
and the texts that explain a deal's commitment and how to check a record."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import MutableMapping, Sequence
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Literal

from babel.dates import format_date, format_datetime, format_time, format_timedelta
from jinja2 import Environment, pass_context
from markupsafe import Markup, escape

from .clock import as_utc, iso
from .engine import Card, Exchange, Sell, TakeCamels, TakeGood, format_move
from .engine.record import RECORD_FORMAT, RECORD_FORMATS
from .engine.rng import RULES
from .engine.views import RULE_NUMBERS
from .i18n import (
    LANGUAGES,
    Reader,
    digits,
    gettext,
    joined,
    ngettext,
    reader,
    shown_duration,
    shown_list,
    shown_number,
    shown_percent,
)
from .i18n.notation import vocabulary
from .i18n.words import came_in, card_label, card_list, move_text, tell


def utc(moment: datetime | None) -> str:
    """``2026-12-02 09:05 UTC``, in the reader's digits (a Persian page mixes no two kinds)."""
    if moment is None:
        return ""
    return digits(as_utc(moment).strftime("%Y-%m-%d %H:%M UTC"))


def when(moment: datetime | str | None) -> str:
    """``2 Dec 2026, 12:35 (GMT+03:30)``: in the reader's language and time zone. A record
    file's time (an ISO text) too; one that does not read as a time is shown as it is."""
    if moment is None:
        return ""
    if isinstance(moment, str):
        try:
            parsed = datetime.fromisoformat(moment)
        except ValueError:
            return moment
        if parsed.tzinfo is None:
            return parsed.isoformat()
        moment = parsed
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
    return digits(f"{text} ({zone})", r.language)


def timestamp(moment: datetime | None) -> str:
    """``iso`` for a page's ``<time datetime>``, or nothing for no moment."""
    return _timestamp(moment) if moment else ""


@lru_cache(maxsize=8192)
def _timestamp(moment: datetime) -> str:
    """Kept: a page shows the times of its last 12 moves (and ``strftime`` is slow)."""
    return iso(moment)


def ago(moment: datetime | None, now: datetime) -> str:
    """``3 hours ago``: coarse, as a player reads it, in the reader's language."""
    if moment is None:
        return ""
    delta = as_utc(moment) - as_utc(now)
    if delta.total_seconds() > -60:
        return gettext("just now")
    return digits(format_timedelta(delta, add_direction=True, threshold=1, locale=reader().locale))


def until(moment: datetime | None, now: datetime) -> str:
    """``in 2 days``, ``in 5 hours``, or ``passed``."""
    if moment is None:
        return ""
    delta = as_utc(moment) - as_utc(now)
    if delta.total_seconds() <= 0:
        return gettext("passed")
    if delta.total_seconds() < 60:
        return gettext("in less than a minute")
    return digits(format_timedelta(delta, add_direction=True, threshold=1, locale=reader().locale))


def days_duration(days: float) -> str:
    """A number of days as the reader reads a length of time (``i18n.shown_duration``)."""
    return shown_duration(timedelta(days=days))


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
        out.append(card_label(card) if n == 1 else f"{card_label(card)} ×{digits(str(n))}")
    return joined(out)


@pass_context
def listed(
    context: Any, items: Any, style: Literal["standard", "or"] = "standard", code: bool = False
) -> str:
    """``{{ [a, b] | listed }}``: items joined the reader's way (``i18n.shown_list``), each
    escaped on a page first, so an item may be markup (``{% set %}`` blocks) and a name
    stays text; ``code=True`` sets each item in ``<code>`` on a page. Every list a page or
    mail joins for a reader goes through it."""
    items = list(items)
    if not context.eval_ctx.autoescape:
        return shown_list(items, style)
    if code:
        items = [Markup('<code dir="ltr">%s</code>') % item for item in items]
    return Markup(shown_list([escape(item) for item in items], style))


def _at_render(function: Any) -> Any:
    """``function`` as a filter Jinja never runs at compile time.

    Jinja folds a filter over a constant when it compiles a template (``"camel" |
    card_label`` became the word of whichever language compiled it first, then stayed).
    A filter that takes the context is left for each render, in its reader's language.
    """

    @pass_context
    def at_render(_context: Any, *args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    at_render.__name__ = getattr(function, "__name__", "filter")
    return at_render


class _Globals(ChainMap[str, Any]):
    """A template's globals over its environment's, as Jinja's own ``ChainMap``, with
    ``keys()`` a real dict's: every ``{% from ... import %}`` asks
    ``context_keys - template.globals.keys()``, which a ``ChainMap``'s view answers with
    one ``in`` in Python per global (about 1,400 calls a seat page); a dict's, in C.
    Built at each call, so globals set after a template loaded still show."""

    def keys(self) -> Any:  # a dict's keys view: the set operations run in C
        merged: dict[str, Any] = {}
        for mapping in reversed(self.maps):
            merged.update(mapping)
        return merged.keys()


class QuickGlobals:
    """Mixed into a Jinja ``Environment``: template globals as ``_Globals``."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return _Globals({} if d is None else d, self.globals)  # type: ignore[attr-defined]


class QuickEnvironment(QuickGlobals, Environment):
    """The mails' Jinja environment (``QuickGlobals``)."""


def label(text: Any) -> Any:
    """``{{ _("Goods tokens:") | label }} {{ value }}``'s gap: a space after a label,
    none after a full-width colon ("货品钱币：无", not "货品钱币： 无")."""
    return text if str(text).endswith(("：", "）")) else text + " "


def register_filters(env: Environment) -> None:
    filters: dict[str, Any] = {
        "utc": utc,
        "when": when,
        "iso": timestamp,
        "cards_text": cards_text,
        "card_label": card_label,
        "tell": tell,
        "came_in": came_in,
        "move_text": move_text,
        "card_list": card_list,
        "num": shown_number,  # a number in the reader's digits (Persian: ۰-۹)
        "percent": shown_percent,  # a share 0–1 as the reader writes a percentage
        "days_duration": days_duration,  # 0.5 days as "12 hours", 2.0 as "2 days"
        "label": label,  # a label and the gap after it, as its language writes it
    }
    env.filters.update({name: _at_render(f) for name, f in filters.items()})
    env.filters["listed"] = listed  # takes the context: never folded at compile time
    env.globals.update(
        ago=ago,
        until=until,
        reader=reader,
        languages=LANGUAGES,
        common_zones=COMMON_ZONES,
        move_examples=move_examples,
        move_example=move_text,
        seed_check=seed_check,
        commitment_of_server_seed=commitment_of_server_seed,
        commitment_of_seed=commitment_of_seed,
        seed_from_contributions=seed_from_contributions,
        what_verify_checks=what_verify_checks,
        bounce_told=bounce_told,
        on_windows=on_windows,
        rule_numbers=RULE_NUMBERS,
        bonus_sales=bonus_sales,
        # what this server writes first, then the older ones it reads
        record_formats=(RECORD_FORMAT, *(f for f in RECORD_FORMATS if f != RECORD_FORMAT)),
    )


# How a game's deal follows from its commitment, said the same way on every page and
# in every mail. A game dealt from the players' contributions (docs/record-format.md)
# commits to the server's seed, not to the game's seed: saying "sha256 of the seed"
# there would make a careful player who checks by hand conclude that the server cheated.


def commitment_of_server_seed() -> str:
    return gettext(
        "The commitment is sha256 of the server's seed, taken over its 32 bytes (decode "
        "the hex first). The server drew that seed, and mailed the commitment to both "
        "players, before either player added a contribution."
    )


def commitment_of_seed() -> str:
    return gettext(
        "The commitment is sha256 of the game's seed, taken over its 32 bytes (decode the "
        "hex first). It was mailed to both players before the first move."
    )


def seed_from_contributions(names: Sequence[str]) -> str:
    return gettext(
        "The game's seed is HMAC-SHA256 with the server seed's 32 bytes as the key, over "
        'the text "jaipur/1/mix:" + %(first)s\'s contribution + ":" + %(second)s\'s '
        "contribution, each contribution written in lowercase hex.",
        first=names[0],
        second=names[1],
    )


def bounce_told(name: str, dealt: bool, days_per_move: int | None) -> str:
    """What the other player is told when mail to ``name`` bounces, the same on their page
    and in their mail (``services/mailing/bounces.py``). The clock is not stopped by a
    bounce: the scheduler's clock job never looks at mail."""
    first = gettext(
        "Mail to %(name)s bounces: the server mails them nothing more until they sign in "
        "again or change their address. Their link still works.",
        name=name,
    )
    if not dealt:
        second = gettext(
            "Their invitation did not reach them: the game starts once they accept it. If "
            "the address was wrong, start a new game with the right one."
        )
    elif days_per_move is None:
        second = gettext("This game has no clock: it waits for their move.")
    else:
        second = ngettext(
            "Their clock runs as usual: %(num)s day per move, whether mail reaches them or not.",
            "Their clock runs as usual: %(num)s days per move, whether mail reaches them or not.",
            days_per_move,
        )
    return f"{first} {second}"


def what_verify_checks(mixed: bool) -> str:
    if mixed:
        return gettext(
            "pbem verify checks that the commitment is sha256 of the server's seed and that "
            "the seed follows from it and both contributions, deals every round again from "
            "the seed, replays every move with the rules, and checks every hash of the chain."
        )
    return gettext(
        "pbem verify checks that the commitment is sha256 of the seed, deals every round "
        "again from the seed, replays every move with the rules, and checks every hash of "
        "the chain."
    )


def on_windows() -> str:
    """The check commands are written for Linux and macOS; where Windows differs."""
    return gettext(
        "On Windows the commands are in %(windows)s rather than %(unix)s.",
        windows="pbem-check\\Scripts",
        unix="pbem-check/bin",
    )


def seed_check(
    seed: str, server_seed: str | None = None, contributions: Sequence[str] | None = None
) -> str:
    """A one-line check of a published seed with nothing but Python: it prints the
    commitment and, for a game dealt from the players' contributions, the seed that
    ``rng.mix_seed`` makes of them. It needs nothing this server wrote."""
    if server_seed is None or contributions is None:
        return (
            'python3 -c "import hashlib; '
            f"print(hashlib.sha256(bytes.fromhex('{seed}')).hexdigest())\""
        )
    message = f"{RULES}/mix:{contributions[0]}:{contributions[1]}"
    return (
        'python3 -c "import hashlib, hmac; '
        f"s = bytes.fromhex('{server_seed}'); "
        "print(hashlib.sha256(s).hexdigest()); "
        f"print(hmac.new(s, b'{message}', 'sha256').hexdigest())\""
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


def bonus_sales() -> str:
    """``3, 4, and 5+``: the sale sizes that earn a bonus token (``rule_numbers.bonus_sizes``),
    listed as the reader's language lists; the last pile takes larger sales too."""
    *sizes, last = (shown_number(size) for size in RULE_NUMBERS.bonus_sizes)
    return joined([*sizes, f"{last}+"])


def move_examples() -> str:
    """``take diamond · camels · …`` in the reader's notation (a field's placeholder)."""
    vocab = vocabulary(reader().language)
    return " · ".join(format_move(move, vocab) for move in _EXAMPLES)
