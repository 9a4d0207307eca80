"""The reader's language and time zone, and the gettext catalogs that speak it.

One place decides what a text looks like for whom: web pages, mails rendered by a
use case or the scheduler, and service errors all read the *current reader* from a
context variable that the caller sets (``use_reader``) from the seat, the signed-in
player or the browser. The engine knows nothing of languages: its errors carry a
code and parameters, and ``pbem.i18n.words`` renders them here.

Catalogs are ``pbem/translations/<lang>/LC_MESSAGES/messages.po``. A wheel ships the
compiled ``.mo`` (setup.py); a checkout may not have them or may have stale ones,
so a ``.po`` newer than its ``.mo`` is compiled in memory instead.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel import Locale
from babel.dates import format_timedelta
from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent
from babel.support import LazyProxy, NullTranslations, Translations
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

#: The languages a seat may choose, each named in itself.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "el": "Ελληνικά",
    "fa": "فارسی",
    "uk": "Українська",
    "zh": "简体中文",
}
DEFAULT_LANGUAGE = "en"
RIGHT_TO_LEFT = frozenset({"fa"})
#: The digits a language writes its numbers with, where they are not 0-9: the
#: translations and the move notation write Persian numbers with Persian digits.
DIGITS: dict[str, str] = {"fa": "۰۱۲۳۴۵۶۷۸۹"}
_DIGIT_TABLES = {lang: str.maketrans("0123456789", d) for lang, d in DIGITS.items()}
CATALOGS = Path(__file__).resolve().parent.parent / "translations"


@dataclass(frozen=True)
class Reader:
    """Who a text is for: a language of ``LANGUAGES`` and an IANA time zone."""

    language: str = DEFAULT_LANGUAGE
    timezone: str = "UTC"

    @property
    def zone(self) -> ZoneInfo:
        return zone(self.timezone)

    @property
    def locale(self) -> Locale:
        return babel_locale(self.language)

    @property
    def direction(self) -> str:
        return "rtl" if self.language in RIGHT_TO_LEFT else "ltr"


# A Reader is frozen, so one shared default is safe.
_reader: ContextVar[Reader] = ContextVar("pbem_reader", default=Reader())  # noqa: B039


def reader() -> Reader:
    return _reader.get()


@contextmanager
def use_reader(language: str | None, timezone: str | None = None) -> Iterator[Reader]:
    """Render everything inside for this reader (a mail to one seat, say)."""
    chosen = Reader(known_language(language), known_timezone(timezone))
    token = _reader.set(chosen)
    try:
        yield chosen
    finally:
        _reader.reset(token)


def set_reader(language: str | None, timezone: str | None = None) -> Reader:
    """For a whole request: the web layer sets it once the seat or browser is known."""
    chosen = Reader(known_language(language), known_timezone(timezone))
    _reader.set(chosen)
    return chosen


def known_language(language: str | None) -> str:
    """``language`` if we speak it (``zh-Hans-CN`` → ``zh``), else English."""
    if not language:
        return DEFAULT_LANGUAGE
    base = language.replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else DEFAULT_LANGUAGE


def known_timezone(timezone: str | None) -> str:
    if not timezone:
        return "UTC"
    try:
        zone(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return "UTC"
    return timezone


@cache
def zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


@cache
def babel_locale(language: str) -> Locale:
    return Locale.parse("zh_Hans_CN" if language == "zh" else language)


@cache
def translations(language: str) -> NullTranslations:
    """The catalog of ``language`` (English needs none: the message ids are English)."""
    if language == DEFAULT_LANGUAGE:
        return NullTranslations()
    folder = CATALOGS / language / "LC_MESSAGES"
    po, mo = folder / "messages.po", folder / "messages.mo"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as fp:
            return Translations(fp)
    if not po.exists():
        return NullTranslations()
    return Translations(io.BytesIO(compile_po(po)))


def compile_po(po: Path) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file; fuzzy entries are left out, as gettext does."""
    with po.open("rb") as fp:
        catalog = read_po(fp)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def digits(text: str, language: str | None = None) -> str:
    """``text`` with 0-9 written in the reader's digits (Persian: ۰-۹), so that a page
    never mixes two kinds; other languages keep it as it is."""
    table = _DIGIT_TABLES.get(language or reader().language)
    return text.translate(table) if table is not None else text


#: FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE (Unicode bidi, UAX #9).
FSI, PDI = "\u2068", "\u2069"


def isolate(name: str, language: str | None = None) -> str:
    """A person's name inside a right-to-left reader's text, isolated (FSI … PDI): it takes
    its own direction, and a line that begins with a Latin-script name still runs right to
    left (the paragraph's direction skips what an isolate holds). Other readers: as it is."""
    if (language or reader().language) not in RIGHT_TO_LEFT or not name:
        return name
    if isinstance(name, Markup) or name.startswith(FSI):  # isolated already (<bdi>, FSI)
        return name
    return f"{FSI}{name}{PDI}"


def shown_number(value: float) -> str:
    """A number as the reader reads it: the one helper every shown number goes through
    (gettext's numeric params, the ``num`` filter, ``words.number``)."""
    r = reader()
    if isinstance(value, int):
        return digits(str(value), r.language)
    # the locale's own separators (Persian: ٫ and ٬), then its digits
    return digits(format_decimal(value, locale=r.locale, numbering_system="default"), r.language)


def shown_duration(length: timedelta) -> str:
    """A length of time in whole days and whole hours (under an hour: whole minutes),
    rounded down, in the reader's words: "2 days", "7 days 23 hours", "12 годин", "۱۲
    ساعت". A fraction never shows: no decimal separator to get wrong, each unit takes
    CLDR's plural form for its number, and CLDR's list pattern joins the two (Babel's)."""
    minutes = max(0, round(length.total_seconds()) // 60)
    days, hours = divmod(minutes // 60, 24)
    r = reader()
    if not days and not hours:
        parts = [_unit(timedelta(minutes=minutes), "minute", r.locale)]
    else:
        parts = [_unit(timedelta(days=days), "day", r.locale)] if days else []
        if hours:
            parts.append(_unit(timedelta(hours=hours), "hour", r.locale))
    return digits(format_list(parts, style="unit-narrow", locale=r.locale), r.language)


#: Where CLDR's end pattern is not how the language writes: CLDR gives Persian a
#: serial comma before "و"/"یا" ("پارچه، و چرم"); Persian writes "پارچه و چرم".
_LIST_ENDS: dict[tuple[str, str], str] = {
    ("fa", "standard"): "{0} و {1}",
    ("fa", "or"): "{0} یا {1}",
}


def joined(parts: list[str], style: str = "standard", locale: Any = None) -> str:
    """Babel's ``format_list`` with the ends of ``_LIST_ENDS``: every list a reader
    reads is joined here, so the override holds in pages and mails alike. Chinese sets
    its joining word apart from digits and Latin letters ("1 张黄金和 1 张皮革")."""
    loc = babel_locale(reader().language) if locale is None else Locale.parse(locale)
    end = _LIST_ENDS.get((loc.language, style))
    if loc.language not in SPACED and (end is None or len(parts) < 3):
        return format_list(parts, style=style, locale=loc)  # type: ignore[arg-type]
    if not parts:
        return ""
    patterns = loc.list_patterns[style]
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        return _pair(end or patterns["2"], parts[0], parts[1], loc.language)
    out = _pair(end or patterns["end"], parts[-2], parts[-1], loc.language)
    for part in reversed(parts[1:-2]):
        out = _pair(patterns["middle"], part, out, loc.language)
    return _pair(patterns["start"], parts[0], out, loc.language)


#: Languages whose words are set apart from digits and Latin letters by a space, as the
#: catalogs write them ("第 %(n)s 步"), and not from full-width punctuation.
SPACED = frozenset({"zh"})
_LATIN_OR_DIGIT = re.compile(r"[0-9A-Za-z+]")
_FULL_WIDTH = "（）「」『』【】《》，。：；！？、"
_BY_FULL_WIDTH = re.compile(f"(?<=[{_FULL_WIDTH}]) | (?=[{_FULL_WIDTH}])")


def _pair(pattern: str, first: str, second: str, language: str) -> str:
    """``pattern`` ("{0}和{1}") filled; in a ``SPACED`` language a joining word gets a
    space on each side that meets a digit or a Latin letter."""
    if language in SPACED:
        head, _, tail = pattern.partition("{0}")
        word, _, rest = tail.partition("{1}")
        if word.strip() and word.strip()[0] not in _FULL_WIDTH:
            word = word.strip()
            before = " " if _LATIN_OR_DIGIT.match(_seen(first)[-1:]) else ""
            after = " " if _LATIN_OR_DIGIT.match(_seen(second)[:1]) else ""
            return f"{head}{first}{before}{word}{after}{second}{rest}"
    return pattern.format(first, second)


def _seen(item: str) -> str:
    """What a reader sees of a list's item: an item of a page may be markup."""
    return html.unescape(re.sub(r"<[^>]*>", "", item)) if "<" in item or "&" in item else item


def spaced(text: Any, language: str) -> Any:
    """A filled-in text of a ``SPACED`` language without a space beside full-width
    punctuation (a name "电脑（简单）" in "%(name)s 卖出"); a ``Markup`` stays one."""
    if language not in SPACED or " " not in text:
        return text
    tidy = _BY_FULL_WIDTH.sub("", str(text))
    return Markup(tidy) if isinstance(text, Markup) else tidy


def shown_list(items: Any, style: Literal["standard", "or"] = "standard") -> str:
    """Words joined as the reader joins a list (CLDR's patterns, Babel's ``format_list``):
    "gold and cloth", "طلا و پارچه", "黄金和布料"; ``style="or"`` for a choice. No ", "
    written by hand: Persian writes "،", Chinese "、"."""
    parts = [str(item) for item in items]
    if not parts:
        return ""
    return joined(parts, style)


def _unit(whole: timedelta, unit: Literal["day", "hour", "minute"], locale: Any) -> str:
    """A whole number of one unit: "7 days", "23 ώρες"."""
    return format_timedelta(whole, granularity=unit, threshold=10**9, locale=locale)


def shown_percent(value: float | None) -> str:
    """A share (0–1) as a whole percentage the reader's way: "43%", "43 %", Persian "٪۴۳"."""
    if value is None:
        return ""
    r = reader()
    text = format_percent(value, locale=r.locale, numbering_system="default")
    if r.language == "fa":  # Persian digits take the Arabic percent sign (CLDR's arabext)
        text = text.replace("%", "\u066a")
    return digits(text, r.language)


#: The params of the catalogs' texts that hold a person's name.
NAME_PARAMS = frozenset({"name", "me", "opponent", "mover", "them", "first", "second"})


def _shown(params: dict[str, Any]) -> dict[str, Any]:
    """Numeric params (not booleans) as ``shown_number`` writes them; names isolated for a
    right-to-left reader (``isolate``)."""
    rtl = reader().language in RIGHT_TO_LEFT
    out = {}
    for k, v in params.items():
        if isinstance(v, int | float) and not isinstance(v, bool):
            v = shown_number(v)
        elif rtl and k in NAME_PARAMS and isinstance(v, str):
            v = isolate(v)
        out[k] = v
    return out


def gettext(message: str, **params: Any) -> str:
    """``message`` in the current reader's language, with ``%(name)s`` params filled in."""
    language = reader().language
    text = translations(language).gettext(message)
    return spaced(text % _shown(params), language) if params else text


def plural_count(n: float) -> int:
    """The whole number whose plural form a count takes: gettext's forms are chosen for
    whole numbers, and a fraction (1.5 days, 0.5 days) reads as a plural."""
    if isinstance(n, float) and not n.is_integer():
        return max(2, math.ceil(n))
    return int(n)


def ngettext(singular: str, plural: str, n: float, **params: Any) -> str:
    """The form for ``n`` in the reader's language; ``%(num)s`` is ``n`` unless given."""
    params.setdefault("num", n)
    language = reader().language
    text = translations(language).ngettext(singular, plural, plural_count(n))
    return spaced(text % _shown(params), language)


def lazy_gettext(message: str, **params: Any) -> LazyProxy:
    """A text built now (at import, in a service) and translated when it is shown."""
    return LazyProxy(gettext, message, enable_cache=False, **params)


def lazy_ngettext(singular: str, plural: str, n: float, **params: Any) -> LazyProxy:
    """``ngettext``, translated when it is shown (imported as ``_ln``, which extraction
    knows: ``scripts/i18n.sh``)."""
    return LazyProxy(ngettext, singular, plural, n, enable_cache=False, **params)


#: At most this many translated texts without params are kept (``_jinja_gettext``).
KEPT_TEXTS = 4096
_kept_texts: dict[tuple[NullTranslations, str, bool], str] = {}


@pass_context
def _jinja_gettext(context: Context, message: str, **params: Any) -> str:
    """A page's ``_("...")``. A text without params is the same for every reader of a
    language, so it is kept, per catalog and autoescaping (a ``Markup`` where the page
    escapes, a ``str`` where it does not), and formatted once: about 60 a seat page."""
    catalog = translations(reader().language)
    escaping = context.eval_ctx.autoescape
    if params:
        text = catalog.gettext(message)
        return spaced((Markup(text) if escaping else text) % _shown(params), reader().language)
    key = (catalog, message, escaping)
    kept = _kept_texts.get(key)
    if kept is None:
        text = catalog.gettext(message)
        kept = (Markup(text) if escaping else text) % {}  # "%%" reads "%", as with params
        if len(_kept_texts) < KEPT_TEXTS:
            _kept_texts[key] = kept
    return kept


@pass_context
def _jinja_ngettext(context: Context, singular: str, plural: str, n: float, **params: Any) -> str:
    params.setdefault("num", n)
    language = reader().language
    text = translations(language).ngettext(singular, plural, plural_count(n))
    filled = (Markup(text) if context.eval_ctx.autoescape else text) % _shown(params)
    return spaced(filled, language)


def install_gettext(env: Any) -> None:
    """``_()``, ``gettext`` and ``ngettext`` in a Jinja environment, for the current reader.

    New-style gettext: ``{{ _("Move %(n)s", n=n) }}`` formats and escapes its params,
    as Jinja's own would. Ours go straight to the catalog: Jinja's wrap the callable
    in two more layers of ``Context.call``, which made up a fifth of a mail's rendering.
    """
    if "jinja2.ext.InternationalizationExtension" not in env.extensions:
        env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(gettext=gettext, ngettext=ngettext, newstyle=True)
    env.globals.update(_=_jinja_gettext, gettext=_jinja_gettext, ngettext=_jinja_ngettext)


_ = gettext
