"""The engine's facts in the reader's words: cards, move accounts and rule errors.

The engine returns data (an ``Account``, a ``MoveError`` with a code and params);
this is the one place that turns it into sentences, through the catalogs.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any

from babel.numbers import format_decimal
from markupsafe import escape

from ..engine import Card, Claim, Exchange, Resign, Sell, TakeCamels, TakeGood, Timeout
from ..engine.errors import MESSAGES, MoveError
from ..engine.explain import Account, Seal
from . import digits, isolate, joined, ngettext, reader, shown_list
from . import gettext as _
from .notation import card_name, written

#: The English card words an engine error may carry as a parameter.
CARD_WORDS = frozenset(card.word for card in Card)


def number(n: int) -> str:
    return _number(n, reader().language)


@lru_cache(maxsize=1024)
def _number(n: int, language: str) -> str:
    return digits(format_decimal(n, locale=reader().locale, numbering_system="default"), language)


def cards_of(card: Card, n: int) -> str:
    """``2 spice``, ``1 diamond``, ``3 camels``, in the reader's plural forms."""
    forms = {
        Card.DIAMOND: lambda: ngettext("%(num)s diamond", "%(num)s diamonds", n, num=number(n)),
        Card.GOLD: lambda: ngettext("%(num)s gold", "%(num)s gold", n, num=number(n)),
        Card.SILVER: lambda: ngettext("%(num)s silver", "%(num)s silver", n, num=number(n)),
        Card.CLOTH: lambda: ngettext("%(num)s cloth", "%(num)s cloth", n, num=number(n)),
        Card.SPICE: lambda: ngettext("%(num)s spice", "%(num)s spice", n, num=number(n)),
        Card.LEATHER: lambda: ngettext("%(num)s leather", "%(num)s leather", n, num=number(n)),
        Card.CAMEL: lambda: ngettext("%(num)s camel", "%(num)s camels", n, num=number(n)),
    }
    return forms[card]()


def card_list(cards: tuple[Card, ...] | list[Card]) -> str:
    """``2 spice and 1 leather``; an empty list is "none"."""
    if not cards:
        return _("none")
    return _card_list(tuple(sorted(cards)), reader().language)


@lru_cache(maxsize=4096)
def _card_list(cards: tuple[Card, ...], language: str) -> str:
    """Kept per language: every mail and page lists hands and markets, and they repeat."""
    parts = [cards_of(card, n) for card, n in sorted(Counter(cards).items())]
    return joined(parts)


def card_label(card: Card | str) -> str:
    """The name on a card's face in the reader's language (``card`` may be its English word)."""
    if isinstance(card, str):
        card = Card.from_word(card)
    return card_name(card, reader().language)


def move_text(canonical: str) -> str:
    """A logged move in the reader's notation (the stored text stays canonical)."""
    return written(canonical, reader().language)


def _preview(a: Account) -> list[str]:
    move = a.move
    if isinstance(move, Resign):
        return [_("You resign: your opponent wins the match at once.")]
    if isinstance(move, Claim):
        return [_("You claim the win: your opponent's time for this move ran out.")]
    if isinstance(move, Timeout):
        return [_("Your time for this move runs out.")]
    out: list[str] = []
    if isinstance(move, TakeGood):
        out.append(_("You take %(cards)s from the market.", cards=cards_of(move.good, 1)))
    elif isinstance(move, TakeCamels):
        out.append(
            ngettext(
                "You take the %(num)s camel from the market.",
                "You take all %(num)s camels from the market.",
                a.camels,
                num=number(a.camels),
            )
        )
    elif isinstance(move, Exchange):
        out.append(
            _(
                "You take %(taken)s and give back %(given)s.",
                taken=card_list(move.taken),
                given=card_list(move.given),
            )
        )
    elif isinstance(move, Sell):
        cards = cards_of(move.good, move.count)
        if a.tokens:
            out.append(
                ngettext(
                    "You sell %(cards)s for goods token %(tokens)s.",
                    "You sell %(cards)s for goods tokens %(tokens)s.",
                    len(a.tokens),
                    cards=cards,
                    tokens=_tokens(a.tokens),
                )
            )
        else:
            out.append(_("You sell %(cards)s: no tokens of that good are left.", cards=cards))
        if a.bonus is True:
            out.append(_("You win a bonus token."))
        elif a.bonus is False:
            out.append(_("The bonus pile for that sale is empty."))
    if a.refill:
        out.append(
            ngettext(
                "The deck refills the market with %(num)s card.",
                "The deck refills the market with %(num)s cards.",
                a.refill,
                num=number(a.refill),
            )
        )
    if a.hand_after is not None:
        out.append(
            ngettext(
                "Your hand will hold %(num)s card.",
                "Your hand will hold %(num)s cards.",
                a.hand_after,
                num=number(a.hand_after),
            )
        )
    out.extend(_ending(a))
    return out


def _narration(a: Account) -> list[str]:
    assert a.name is not None  # a move played names its mover (only a preview has no name)
    move, name = a.move, isolate(a.name)  # a Latin name begins many a Persian line
    if isinstance(move, Resign):
        return [_("%(name)s resigned.", name=name)]
    if isinstance(move, Timeout):
        return [_("%(name)s's time for this move ran out.", name=name)]
    if isinstance(move, Claim):
        return [_("%(name)s claimed the win on time.", name=name)]
    out: list[str] = []
    if isinstance(move, TakeGood):
        out.append(
            _("%(name)s took %(cards)s from the market.", name=name, cards=cards_of(move.good, 1))
        )
    elif isinstance(move, TakeCamels):
        out.append(
            ngettext(
                "%(name)s took the %(num)s camel from the market.",
                "%(name)s took all %(num)s camels from the market.",
                a.camels,
                name=name,
                num=number(a.camels),
            )
        )
    elif isinstance(move, Exchange):
        out.append(
            _(
                "%(name)s took %(taken)s and gave back %(given)s.",
                name=name,
                taken=card_list(move.taken),
                given=card_list(move.given),
            )
        )
    elif isinstance(move, Sell):
        cards = cards_of(move.good, move.count)
        if a.tokens:
            out.append(
                ngettext(
                    "%(name)s sold %(cards)s for goods token %(tokens)s.",
                    "%(name)s sold %(cards)s for goods tokens %(tokens)s.",
                    len(a.tokens),
                    name=name,
                    cards=cards,
                    tokens=_tokens(a.tokens),
                )
            )
        else:
            out.append(
                _(
                    "%(name)s sold %(cards)s: no tokens of that good were left.",
                    name=name,
                    cards=cards,
                )
            )
        if a.bonus is True:
            out.append(_("%(name)s won a bonus token.", name=name))
        elif a.bonus is False:
            out.append(_("The bonus pile for that sale was empty."))
    if a.refill:
        out.append(
            ngettext(
                "The deck refilled the market with %(num)s card.",
                "The deck refilled the market with %(num)s cards.",
                a.refill,
                num=number(a.refill),
            )
        )
    out.extend(_ending(a))
    return out


def _tokens(values: tuple[int, ...]) -> str:
    return joined([number(v) for v in values])


def _ending(a: Account) -> list[str]:
    out: list[str] = []
    if a.round_end == "piles":
        out.append(_("The round ends: three goods piles are empty."))
    elif a.round_end == "deck":
        out.append(_("The round ends: the deck is empty."))
    if a.name is None:  # a preview
        out.extend(_outlook(a))
    elif a.match_won:
        out.append(_("%(name)s wins the match.", name=isolate(a.name)))
    return out


def _outlook(a: Account) -> list[str]:
    """What a preview's mover can know of how the round and the match end."""
    if a.match_won:
        return [_("You win the match.")]
    if a.match_lost:
        return [_("Your opponent wins the match.")]
    if a.seal is Seal.MOVER:
        return [_("You win this round's seal.")]
    if a.seal is Seal.OPPONENT:
        return [_("Your opponent wins this round's seal.")]
    if a.seal is Seal.NOBODY:
        return [_("The round is a tie: nobody wins its seal.")]
    if a.seal is Seal.UNDECIDED:
        return [_("Who wins this round depends on the face-down bonus tokens.")]
    return []


def tell(account: Account | str) -> str:
    """An account in the reader's language (a string is passed through unchanged)."""
    if isinstance(account, str):
        return account
    return _told(account, reader().language)


@lru_cache(maxsize=65536)
def _told(account: Account, language: str) -> str:
    """Every page shows the last moves, and each move's mails tell it again: the
    sentences depend on the account and the language only, so each is built once."""
    sentences = _preview(account) if account.is_preview else _narration(account)
    return ("" if language == "zh" else " ").join(sentences)


def _localized_param(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return number(value) if isinstance(value, int) else value
    if value in CARD_WORDS:
        return card_label(Card.from_word(value))
    if name == "goods":  # a list of card words, joined as the reader joins a list
        parts = value.split(", ")
        if all(part in CARD_WORDS for part in parts):
            return shown_list(card_label(Card.from_word(part)) for part in parts)
    if name == "cards":  # card words of a move's notation ('exchange {cards} for …')
        parts = value.split(" ")
        if all(part in CARD_WORDS for part in parts):
            return " ".join(card_label(Card.from_word(part)) for part in parts)
    if name == "choices":
        return shown_list(value.split(" or "), style="or")
    return value


@lru_cache(maxsize=1)
def _refusals() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each rule's refusal as English words around its params (a param seen twice must
    be the same text twice), to read back a refusal the access log keeps in English: the
    one with the most words of its own first, so a general one never reads a narrower one's."""
    out = []
    for code, message in MESSAGES.items():
        seen: set[str] = set()
        pattern = ""
        for i, piece in enumerate(re.split(r"\{(\w+)\}", message)):
            if i % 2 == 0:
                pattern += re.escape(piece)
            elif piece in seen:
                pattern += f"(?P={piece})"
            else:
                seen.add(piece)
                pattern += f"(?P<{piece}>.+?)"
        literal = len(re.sub(r"\{\w+\}", "", message))
        out.append((literal, code, re.compile(pattern, re.S)))
    out.sort(key=lambda found: -found[0])
    return tuple((code, pattern) for _, code, pattern in out)


def logged_refusal(english: str) -> str | None:
    """A rule's refusal as the access log keeps it (its English words, ``exc.english``)
    in the reader's words; None for a text that is no rule's refusal."""
    for code, pattern in _refusals():
        found = pattern.fullmatch(english)
        if found is not None:
            params = {k: int(v) if v.isdigit() else v for k, v in found.groupdict().items()}
            return error_text(MoveError(code, **params))
    return None


def error_text(error: Exception) -> str:
    """A rule's refusal in the reader's language; other errors keep their own text."""
    if not isinstance(error, MoveError) or error.code not in MESSAGES:
        return str(error)
    params = {k: _localized_param(k, v) for k, v in error.params.items()}
    template = _(MESSAGES[error.code])
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):  # a broken translation: fall back to English
        return MESSAGES[error.code].format(**params)


def came_in(source: str | None) -> str:
    """How a logged move came in (``services.play.moves.SOURCES``), in the reader's words: the
    replay's step and the audit of a turn say it the same way."""
    words = {
        "web": lambda: _("through the seat page"),
        "email": lambda: _("by email reply"),
        "api": lambda: _("through the API"),
        "timeout": lambda: _("by the server's clock (a deadline passed)"),
        "cli": lambda: _("from the operator's command line"),
        "bot": lambda: _("played by the computer"),
        "event": lambda: _("by the event (a withdrawal, or a timeout's win claimed)"),
    }
    said = words.get(source or "")
    return said() if said is not None else (source or "")


class ComputerName(str):
    """The computer's name as stored ("Computer (normal)", ``services.play.computer.name``) that
    pages and mails show in the reader's words (zh 电脑（普通）). Its value, which the record,
    the database and every comparison see, stays the stored one: a record is the same for
    every reader. Only showing it (``str``, ``format``, Jinja's escaping) translates it."""

    level: str

    def __new__(cls, stored: str, level: str) -> ComputerName:
        made = super().__new__(cls, stored)
        made.level = level
        return made

    def shown(self) -> str:
        said = {
            "easy": lambda: _("Computer (easy)"),
            "normal": lambda: _("Computer (normal)"),
            "strong": lambda: _("Computer (strong)"),
        }.get(self.level)
        return said() if said is not None else str.__str__(self)

    def __str__(self) -> str:
        return self.shown()

    def __format__(self, spec: str) -> str:
        return format(self.shown(), spec)

    def __html__(self) -> str:
        return str(escape(self.shown()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (ComputerName, (str.__str__(self), self.level))


class BotName(str):
    """A bot account's name (docs/bots.md) as pages and mails show it: followed by a
    "bot" badge in the reader's words. Like ``ComputerName``, its value (the record, the
    database, every comparison) stays the stored name; only showing it adds the badge."""

    def shown(self) -> str:
        return _("%(name)s (bot)", name=str.__str__(self))

    def __str__(self) -> str:
        return self.shown()

    def __format__(self, spec: str) -> str:
        return format(self.shown(), spec)

    def __html__(self) -> str:
        return str(escape(self.shown()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (BotName, (str.__str__(self),))
