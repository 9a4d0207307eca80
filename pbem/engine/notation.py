"""Reading moves as players type them (FORMAT.md §3).

The server always prints the canonical form (``str(move)``); this module reads
it liberally: any case, commas or ``+`` between cards, plurals, counts
(``2 spice``, ``2x spice``, ``spice x2``), unambiguous prefixes (``dia``,
``si``, ``sp``) and the blank or quoted lines around a move in an email reply.
It raises nothing but ``InvalidMoveError``.
"""

from __future__ import annotations

import re
import unicodedata

from .cards import CARDS, Card
from .errors import InvalidMoveError
from .moves import Claim, Exchange, Move, Resign, Sell, TakeCamels, TakeGood, Timeout

_VERBS = {
    "take": "take",
    "camels": "camels",
    "camel": "camels",
    "exchange": "exchange",
    "trade": "exchange",
    "swap": "exchange",
    "sell": "sell",
    "resign": "resign",
    "timeout": "timeout",
    "claim": "claim",
}
_STANDALONE: dict[str, type] = {"resign": Resign, "timeout": Timeout, "claim": Claim}
_SEPARATORS = frozenset({"for", "with", "give", "giving", "->", "=>", "→"})
_FILLERS = frozenset({"and", "the", "all", "my", "of", "&", "a"})
_CARD_WORDS = {card.word: card for card in CARDS}
_COUNT = re.compile(r"^(?:x|×)?(\d{1,2})(?:x|×)?$")
_SPLIT = re.compile(r"[\s,;+]+")
MAX_TEXT = 2000


def move_line(text: str) -> str:
    """The first line that is neither blank nor quoted email text (``> …``)."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(">"):
            return stripped
    return ""


def _tokens(line: str) -> list[str]:
    # NFKC folds full-width letters and digits (``３``) into ASCII ones.
    line = unicodedata.normalize("NFKC", line).casefold()
    return [t for t in _SPLIT.split(line) if t and t not in _FILLERS]


def _prefix_match(word: str, table: dict[str, object]) -> list[str]:
    if word in table:
        return [word]
    return [name for name in table if name.startswith(word)]


def _card(word: str) -> Card:
    stems = [word]
    if word.endswith("es"):
        stems.append(word[:-2])
    if word.endswith("s"):
        stems.append(word[:-1])
    for stem in stems:
        if not stem:
            continue
        found = _prefix_match(stem, _CARD_WORDS)
        if len(found) == 1:
            return _CARD_WORDS[found[0]]
        if len(found) > 1:
            raise InvalidMoveError("ambiguous_card", word=word, choices=" or ".join(found))
    raise InvalidMoveError("unknown_card", word=word)


def _count(word: str) -> int | None:
    match = _COUNT.match(word)
    if not match or word in ("x", "×"):
        return None
    n = int(match.group(1))
    if not 1 <= n <= 11:
        raise InvalidMoveError("bad_count", word=word)
    return n


def _card_list(tokens: list[str]) -> list[Card]:
    """Cards from words and counts: ``2 spice leather x2`` is spice spice leather leather."""
    cards: list[Card] = []
    pending: int | None = None
    last_run: tuple[Card, int, bool] | None = None  # card, run length, had a count
    for word in tokens:
        if word in ("x", "×"):
            continue
        count = _count(word)
        if count is not None:
            trailing = word.startswith(("x", "×"))
            if trailing and last_run is not None and not last_run[2] and pending is None:
                card, run, _ = last_run
                cards.extend([card] * (count - run))
                last_run = (card, count, True)
                continue
            if pending is not None:
                raise InvalidMoveError("dangling_count", count=pending)
            pending = count
            continue
        card = _card(word)
        n = pending if pending is not None else 1
        cards.extend([card] * n)
        last_run = (card, n, pending is not None)
        pending = None
    if pending is not None:
        raise InvalidMoveError("dangling_count", count=pending)
    return cards


def _split_exchange(tokens: list[str]) -> tuple[list[str], list[str]] | None:
    for i, word in enumerate(tokens):
        if word in _SEPARATORS:
            return tokens[:i], tokens[i + 1 :]
    return None


def _exchange(taken_words: list[str], given_words: list[str]) -> Exchange:
    taken = _card_list(taken_words)
    given = _card_list(given_words)
    if Card.CAMEL in taken:
        raise InvalidMoveError("exchange_camel_taken")
    if not taken or not given:
        raise InvalidMoveError("exchange_needs_for")
    return Exchange(tuple(taken), tuple(given))


def _verb(word: str) -> str:
    found = _prefix_match(word, _VERBS)
    verbs = {_VERBS[name] for name in found}
    if len(verbs) != 1 or (len(word) < 2 and word not in _VERBS):
        raise InvalidMoveError("unknown_verb", word=word)
    return verbs.pop()


def parse_move(text: str) -> Move:
    """Read one move; ``InvalidMoveError`` says what could not be read."""
    if not isinstance(text, str):
        raise InvalidMoveError("empty")
    tokens = _tokens(move_line(text[:MAX_TEXT]))
    if not tokens:
        raise InvalidMoveError("empty")
    verb, rest = _verb(tokens[0]), tokens[1:]

    if verb in _STANDALONE:
        if rest and not (verb == "claim" and rest in (["win"], ["the", "win"])):
            raise InvalidMoveError("standalone_extra", word=verb)
        return _STANDALONE[verb]()

    if verb == "camels":
        if rest:
            raise InvalidMoveError("camels_extra")
        return TakeCamels()

    if verb == "exchange":
        parts = _split_exchange(rest)
        if parts is None:
            raise InvalidMoveError("exchange_needs_for")
        return _exchange(*parts)

    if verb == "take":
        parts = _split_exchange(rest)
        if parts is not None:
            return _exchange(*parts)
        cards = _card_list(rest)
        if not cards:
            raise InvalidMoveError("take_needs_one_good")
        if all(card is Card.CAMEL for card in cards):
            if len(cards) > 1:
                raise InvalidMoveError("camels_take_all")
            return TakeCamels()
        if Card.CAMEL in cards:
            raise InvalidMoveError("take_needs_one_good")
        if len(cards) > 1:
            raise InvalidMoveError(
                "take_several", count=len(cards), cards=" ".join(c.word for c in sorted(cards))
            )
        return TakeGood(cards[0])

    # sell
    cards = _card_list(rest)
    if not cards:
        raise InvalidMoveError("sell_needs_cards")
    kinds = sorted(set(cards))
    if Card.CAMEL in kinds:
        raise InvalidMoveError("sell_camel")
    if len(kinds) > 1:
        raise InvalidMoveError("sell_one_type", goods=", ".join(c.word for c in kinds))
    return Sell(kinds[0], len(cards))


def format_move(move: Move) -> str:
    """The canonical text of a move (the same as ``str(move)``)."""
    return str(move)
