"""Reading what a request carries, bounded where it enters (every view reads through here).

Numbers from a form, a query or a route would otherwise reach the database as
they came (a 23-digit move number overflows its integer column); a JSON body
ten thousand arrays deep exhausts the parser's recursion; a megabyte typed
into a name field is copied into every page that echoes it. Each reader here
refuses such input with a ``InvalidInput`` (400) that the app shows in the
reader's language, as a page or, under ``/api/``, as JSON.
"""

from __future__ import annotations

import json
from typing import Any

from flask import request
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge
from werkzeug.routing import IntegerConverter, UnicodeConverter

from ..i18n import lazy_gettext as _l
from ..services.core.errors import InvalidInput
from ..services.play.game_clock import CLOCK_LIMITS

#: A move number, a step of a replay: no game comes near this many moves.
MAX_MOVE = 100_000
#: Days away, days per move and the like.
MAX_DAYS = 366
#: The longest free text a form field may hold (a note to the opponent, a phrase).
MAX_TEXT = 2_000
#: A short field: a name, an address, a language, a time zone, a choice.
MAX_SHORT = 320
#: A JSON body of the API: a move and its number, an acceptance.
MAX_JSON_BYTES = 16 * 1024
MAX_JSON_DEPTH = 16
#: Repeated query arguments (the what-if explorer's ``try``), and the longest segment of a path.
MAX_REPEATS = 200
MAX_SEGMENT = 1024


#: Persian (۰-۹) and Arabic-Indic (٠-٩) digits and the Arabic decimal separator, as 0-9
#: and ".": a Persian page writes its number fields in Persian digits, and a phone's
#: keyboard may type either set.
_LATIN = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩٫", "01234567890123456789.")


def latin_digits(text: str) -> str:
    """``text`` with every Persian or Arabic-Indic digit written 0-9."""
    return text.translate(_LATIN)


def _out_of_range(label: Any, low: float, high: float) -> InvalidInput:
    return InvalidInput(
        _l(
            "%(what)s: a number from %(low)s to %(high)s, please.",
            what=label,
            low=f"{low:g}",
            high=f"{high:g}",
        )
    )


def number(
    source: MultiDict[str, str],
    name: str,
    *,
    low: int,
    high: int,
    label: Any,
    default: int | None = None,
) -> int:
    """An integer argument in ``low..high``; ``default`` when it is absent or empty."""
    raw = source.get(name, "")
    if raw.strip() == "" and default is not None:
        return default
    return bounded_int(raw, low=low, high=high, label=label)


def bounded_int(raw: Any, *, low: int, high: int, label: Any) -> int:
    """``raw`` (a string, or an int from JSON) as an integer in ``low..high``, or a 400."""
    if isinstance(raw, bool):
        raise _out_of_range(label, low, high)
    if isinstance(raw, str):
        text = latin_digits(raw.strip())
        # no more digits than the bound has: int() of a megabyte of digits is itself slow
        if not text or len(text) > len(str(high)) + 1:
            raise _out_of_range(label, low, high)
        try:
            raw = int(text)
        except ValueError:
            raise _out_of_range(label, low, high) from None
    if not isinstance(raw, int) or not low <= raw <= high:
        raise _out_of_range(label, low, high)
    return raw


def decimal(
    source: MultiDict[str, str], name: str, *, low: float, high: float, label: Any
) -> float:
    """A finite decimal in ``low..high`` (``float()`` alone takes ``inf`` and ``nan``)."""
    raw = latin_digits(source.get(name, "").strip())
    try:
        value = float(raw) if len(raw) <= 20 else float("nan")
    except ValueError:
        value = float("nan")
    if not low <= value <= high:  # false for nan
        raise _out_of_range(label, low, high)
    return value


def text(
    source: MultiDict[str, str], name: str, *, limit: int = MAX_SHORT, default: str = ""
) -> str:
    """A string argument of at most ``limit`` characters."""
    value = source.get(name, default)
    if len(value) > limit:
        raise InvalidInput(_l("That text is too long: at most %(limit)s characters.", limit=limit))
    return value


def optional_text(source: MultiDict[str, str], name: str, *, limit: int = MAX_SHORT) -> str | None:
    """Like ``text``, but None when the argument is absent."""
    return text(source, name, limit=limit) if name in source else None


def texts(source: MultiDict[str, str], name: str, *, limit: int = MAX_SHORT) -> list[str]:
    """A repeated argument: at most ``MAX_REPEATS`` values of at most ``limit`` characters."""
    values = source.getlist(name)
    if len(values) > MAX_REPEATS or any(len(v) > limit for v in values):
        raise InvalidInput(_l("Too many or too long values for '%(name)s'.", name=name))
    return values


def json_object(example: str | None = None) -> dict[str, Any]:
    """The request's JSON body, which must be a small, shallow object (``example``: how
    one looks, told when it is not one; the seat API's by default)."""
    if (request.content_length or 0) > MAX_JSON_BYTES:
        raise RequestEntityTooLarge()
    data = request.get_data(cache=True)
    if len(data) > MAX_JSON_BYTES:  # a chunked body has no Content-Length
        raise RequestEntityTooLarge()
    if json_depth(data) > MAX_JSON_DEPTH:
        raise InvalidInput(
            _l("That JSON is nested too deeply (at most %(depth)s levels).", depth=MAX_JSON_DEPTH)
        )
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError):
        parsed = None
    if not isinstance(parsed, dict):
        if example is not None:
            raise InvalidInput(_l("Send a JSON object, e.g. %(example)s.", example=example))
        raise InvalidInput(_l('Send a JSON object, e.g. {"n": 12, "move": "camels"}.'))
    return parsed


class FieldErrors(InvalidInput):
    """A JSON body's fields refused, each with why: all of them at once (``fields``)."""

    def __init__(self, fields: dict[str, Any]) -> None:
        super().__init__(
            _l("Some fields were refused: %(fields)s.", fields=", ".join(sorted(fields)))
        )
        self.fields = fields


#: The JSON types a body's field may have, and how a refusal of another says so.
JSON_TYPES: dict[str, tuple[tuple[type, ...], Any]] = {
    "text": ((str,), _l("must be a string")),
    "whole": ((int,), _l("must be a whole number")),
    "whole_or_null": ((int, type(None)), _l("must be a whole number or null")),
    "boolean": ((bool,), _l("must be true or false")),
}


def json_fields(example: str, fields: dict[str, str]) -> dict[str, Any]:
    """The request's JSON object, every field known and of its type (``fields``: name to a
    key of ``JSON_TYPES``); else a 400 naming each field refused and why (``FieldErrors``)."""
    data = json_object(example)
    refused: dict[str, Any] = {}
    for key, value in data.items():
        kind = fields.get(key)
        if kind is None:
            refused[key[:40]] = _l("unknown field")
            continue
        types, wrong = JSON_TYPES[kind]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            refused[key] = wrong
    if refused:
        raise FieldErrors(refused)
    return data


def json_depth(data: bytes | str) -> int:
    """How deeply arrays and objects nest in a JSON text, counted without parsing it.

    The parser recurses once per level, so the depth is checked before it runs.
    Brackets inside strings do not count.
    """
    raw = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    depth = deepest = 0
    in_string = escaped = False
    for char in raw:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


class OutOfRange(BadRequest):
    """A route's number that no page has: refused while the URL is matched."""

    description = "out of range"


class BoundedInt(IntegerConverter):
    """``<int:n>`` in every route: at most nine digits, so it always fits the database."""

    def to_python(self, value: str) -> int:
        if len(value) > 9:
            raise OutOfRange()
        return int(super().to_python(value))


class BoundedString(UnicodeConverter):
    """``<name>`` in every route: a segment of at most ``MAX_SEGMENT`` characters."""

    def __init__(
        self,
        map: Any,
        minlength: int = 1,
        maxlength: int | None = None,
        length: int | None = None,
    ) -> None:
        super().__init__(map, minlength, maxlength or MAX_SEGMENT, length)


def clock_number(form: Any, name: str, label: Any, default: int | None) -> int:
    """One of a game clock's numbers from a form, within the service's own bounds
    (``game_clock.CLOCK_LIMITS[name]``: the web layer restates none)."""
    limit = CLOCK_LIMITS[name]
    return number(form, name, low=limit.low, high=limit.high, label=label, default=default)


class Secret(BoundedString):
    """``<secret:token>``: a bearer secret in the path (a seat or sign-in link). Every
    route with one is masked in every log (``web.redact.secret_routes``)."""
