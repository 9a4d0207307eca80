"""Kept pieces of the seat page: a card's button, a row of card backs, a list of tokens,
the goods and bonus piles, each rendered once per language from its macro in
``templates/web/_board.html`` and kept by the app, instead of running the macro again
on every view (they were a third of the page's rendering).

A piece is kept under everything it is made from: the reader's language, the piece's
name and the plain values it shows (a card, whether it is clicked, a list of numbers).
It is rendered from that key alone, never from a seat, a player or a request, so a
kept piece can only ever show what its key says: one seat's cards never reach another
seat's page except as the same button that seat would have got anyway. The pieces are
bounded (``BOUND``, the oldest dropped first); a position needs a few dozen of them.

Where templates are reloaded when they change (development), nothing is kept, so an
edited macro shows at once.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from threading import Lock
from typing import Any, NamedTuple, cast

from flask import Flask, has_request_context, request, url_for
from jinja2 import Environment
from markupsafe import Markup

from ..engine import Card
from ..engine.views import BonusPile, Table
from ..i18n import reader
from . import private

#: The template whose macros the pieces are.
BOARD = "web/_board.html"
#: At most this many pieces are kept per app (about 200 bytes to 2 kB each).
BOUND = 4096


def init_app(app: Flask) -> None:
    """``kept`` and ``kept_url`` in the app's templates, kept by this app alone."""
    app.jinja_env.globals.update(kept=Pieces(app.jinja_env), kept_url=KeptUrls())


class _Piles(NamedTuple):
    """What the ``piles`` macro reads of a table, and nothing else of it."""

    tokens: dict[Card, tuple[int, ...]]
    bonus_piles: tuple[BonusPile, ...]


#: The arguments of a ``piles`` piece's key: hashable, so the tokens are pairs.
_PilesKey = tuple[tuple[tuple[Card, tuple[int, ...]], ...], tuple[BonusPile, ...]]


class Pieces:
    """An app's kept pieces; ``kept`` in its templates (``{{ kept.piles(t) }}``)."""

    def __init__(self, env: Environment, bound: int = BOUND) -> None:
        self._env = env
        self._kept: dict[tuple[Hashable, ...], Markup] = {}
        self._lock = Lock()
        self.bound = bound

    @property
    def keeping(self) -> bool:
        """Not where templates are reloaded when they change (development)."""
        return not self._env.auto_reload

    def __len__(self) -> int:
        return len(self._kept)

    def cards(
        self, cards: Iterable[Card | str], selectable: Any = False, where: str = "", size: str = ""
    ) -> Markup:
        """The ``card`` macro of each card, one after another (a market, a hand, a herd)."""
        language, selectable = reader().language, bool(selectable)
        return Markup("").join(
            [self._piece((language, "card", c, selectable, where, size)) for c in cards]
        )

    def herd(self, camels: int, selectable: Any = False) -> Markup:
        """A herd's camels: ``cards`` of that many camels, small, from the herd."""
        return self.cards((Card.CAMEL.word,) * camels, selectable, "herd", "small")

    def backs(self, n: int) -> Markup:
        """The ``card_backs`` macro: an opponent's hand, face down."""
        return self._piece((reader().language, "card_backs", n))

    def tokens(self, values: Iterable[int], kind: str = "goods") -> Markup:
        """The ``token_list`` macro (empty, so false, for no tokens)."""
        return self._piece((reader().language, "token_list", tuple(values), kind))

    def piles(self, table: Table) -> Markup:
        """The ``piles`` macro: the goods tokens and bonus tokens left on the table."""
        tokens = tuple((good, tuple(values)) for good, values in table.tokens.items())
        return self._piece((reader().language, "piles", tokens, tuple(table.bonus_piles)))

    def _piece(self, key: tuple[Hashable, ...]) -> Markup:
        kept = self._kept.get(key)
        if kept is not None:
            return kept
        html = self.render(key)
        if self.keeping:
            with self._lock:
                while len(self._kept) >= self.bound:
                    del self._kept[next(iter(self._kept))]
                self._kept[key] = html
        return html

    def render(self, key: tuple[Hashable, ...]) -> Markup:
        """The piece ``key`` names, rendered afresh from its key alone (in the reader's
        language, which is the key's)."""
        language, name, *args = key
        assert language == reader().language, "a piece is rendered in its own language"
        if name == "piles":  # the key ``piles`` made: the tokens as pairs, the bonus piles
            tokens, bonus_piles = cast(_PilesKey, tuple(args))
            args = [_Piles(dict(tokens), bonus_piles)]
        macro = getattr(self._env.get_template(BOARD).module, str(name))
        return Markup(macro(*args))


#: A value a URL carries as it is (no character of it is quoted): a seat's token, a
#: game's public id, a static file's name.
_PLAIN = re.compile(r"[A-Za-z0-9_.~-]{1,200}")
#: Where the value goes in a kept URL while it is built.
_SLOT = "pbem-url-slot"


class KeptUrls:
    """``kept_url(endpoint, name=value)`` in an app's templates: ``url_for`` of a route
    with one argument, built once per route with a slot where the value goes, and then
    only filled in (a seat page links a dozen routes of its token, and each ``url_for``
    cost as much as ten of the page's texts). Kept per route and script root, so a
    page served under another prefix gets its own; a value that a URL would quote is
    built by ``url_for`` every time."""

    def __init__(self, bound: int = 256) -> None:
        self._slots: dict[tuple[str, str, str], tuple[str, str]] = {}
        self.bound = bound

    def __call__(self, endpoint: str, **value: Any) -> str:
        ((name, text),) = value.items()
        private.mark(value)  # a kept URL skips url_for, and its hook: the token is noted here
        if not isinstance(text, str) or not _PLAIN.fullmatch(text) or not has_request_context():
            return url_for(endpoint, **value)
        key = (request.script_root, endpoint, name)
        slot = self._slots.get(key)
        if slot is None:
            slotted: dict[str, Any] = {name: _SLOT}
            url = url_for(endpoint, **slotted)
            if url.count(_SLOT) != 1:
                return url_for(endpoint, **value)
            head, tail = url.split(_SLOT)
            slot = (head, tail)
            if len(self._slots) < self.bound:
                self._slots[key] = slot
        return f"{slot[0]}{text}{slot[1]}"
