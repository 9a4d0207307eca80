"""Reading moves as players type them (docs/record-format.md §3), in any language a
``Vocabulary`` gives.

The server always stores the canonical English form (``str(move)``); this module
reads text liberally: any case, accents or none, commas or ``+`` between cards,
plurals and other listed forms, counts (``2 spice``, ``2x spice``, ``spice x2``) in
any script's digits (``۳``, ``３``), unambiguous prefixes (``dia``, ``si``, ``sp``),
words run together where a language writes without spaces (Chinese), and the blank
or quoted lines around a move in an email reply. Invisible formatting characters
(bidi marks, a byte-order mark, zero-width spaces) are dropped and trailing
punctuation is ignored, so a refusal never quotes a word that looks right.

Nothing is guessed: a word may be left out only when leaving it out cannot change
the move (``the``, ``and``, a measure word). "All" (``sell all leather``) means
every card of that good in the mover's hand, so it is read against the hand the
caller passes; without one, or where "all" has no clear meaning, the move is
refused rather than read as something else. Text that cannot be read raises
``InvalidMoveError``; an "all" the hand cannot satisfy raises ``IllegalMoveError``.
The vocabularies of other languages are data kept outside the engine
(``pbem.i18n.notation``); English, the notation itself, is here.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .cards import CARDS, Card
from .errors import IllegalMoveError, InvalidMoveError
from .moves import Claim, Exchange, Move, Resign, Sell, TakeCamels, TakeGood, Timeout

VERBS = ("take", "camels", "exchange", "sell", "resign", "timeout", "claim")
_STANDALONE: dict[str, type] = {"resign": Resign, "timeout": Timeout, "claim": Claim}
_COUNT = re.compile(r"^(?:x|×)?(\d{1,2})(?:x|×)?$")
_SPLIT = re.compile(r"[\s,;+،؛、，；]+")
_LETTER_VARIANTS = str.maketrans({"ي": "ی", "ك": "ک", "ى": "ی", "\u200c": None, "\u0640": None})
MAX_TEXT = 2000
_ZWNJ = "\u200c"
#: Ignored at the end of a move: sentence punctuation of the languages players write
#: in (Greek question mark and ano teleia, Arabic-script marks, CJK full stops).
_TRAILING = frozenset(".!?:;,…。！？：；，、．؟،؛۔·\u037e\u0387")
#: Ignored around a move: a move copied with the quotes a message shows it in.
_QUOTES = frozenset("'\"`«»‹›“”„‘’‚「」『』﹁﹂")


def _arabic_letter(ch: str) -> bool:
    return ch.isalpha() and "ARABIC" in unicodedata.name(ch, "")


def visible(text: str) -> str:
    """``text`` without invisible formatting characters (Unicode category Cf).

    Bidi marks, embeddings and isolates, a byte-order mark, zero-width spaces and
    joiners, soft hyphens and word joiners change nothing a player sees, so a word
    carrying them must read as the word it looks like. The zero-width non-joiner
    between two Arabic-script letters is kept: it is part of Persian spelling
    (``ادویه‌ها``), and ``fold`` compares words without it anyway.
    """
    if text.isascii():
        return text
    chars = [ch for ch in text if ch == _ZWNJ or unicodedata.category(ch) != "Cf"]
    out: list[str] = []
    for i, ch in enumerate(chars):
        after = chars[i + 1] if i + 1 < len(chars) else ""
        if ch != _ZWNJ or (bool(out) and _arabic_letter(out[-1]) and _arabic_letter(after)):
            out.append(ch)
    return "".join(out)


def _trimmed(line: str) -> str:
    """``line`` without trailing punctuation and enclosing quotes (``Take diamond.``)."""
    start, end = 0, len(line)
    while True:
        while end > start and (line[end - 1].isspace() or line[end - 1] in _TRAILING):
            end -= 1
        while start < end and (line[start].isspace() or line[start] in _QUOTES):
            start += 1
        if end > start and line[end - 1] in _QUOTES:
            end -= 1
            continue
        return line[start:end]


def fold(text: str) -> str:
    """The form words are compared in: NFKC, casefolded, accents off, digits in ASCII.

    NFKC folds full-width letters and digits (``３``); other scripts' digits
    (Persian ``۳``) are mapped by their decimal value; Arabic letter variants and
    the zero-width non-joiner are folded, as Persian keyboards differ in them.
    """
    text = unicodedata.normalize("NFKC", text).casefold().translate(_LETTER_VARIANTS)
    out = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch):
            continue
        digit = unicodedata.decimal(ch, None)
        out.append(str(digit) if digit is not None else ch)
    return unicodedata.normalize("NFC", "".join(out))


@dataclass(frozen=True)
class Vocabulary:
    """The words of one language for moves: what it reads, and how it writes a move.

    ``verbs`` maps each accepted form to one of ``VERBS``; ``cards`` maps each form
    (singular, plural, inflected, short) to its card. ``spelled`` says how a move is
    written, with ``{card}``, ``{count}``, ``{taken}`` and ``{given}`` slots, and
    ``names`` gives the form a card is written in. ``every`` lists the words for
    "all"; ``fillers`` only words whose absence cannot change a move.
    """

    language: str
    verbs: Mapping[str, str]
    cards: Mapping[str, Card]
    separators: Iterable[str]
    fillers: Iterable[str]
    spelled: Mapping[str, str]
    names: Mapping[Card, str]
    claim_extras: Iterable[str] = ()
    #: The words for "all": every card of a good in hand, or every camel in the market.
    every: Iterable[str] = ()
    #: Split runs of text on known words (a language written without spaces).
    segment: bool = False
    #: The digits counts are written in (Persian writes ``۳``); any digits are read.
    digits: str = "0123456789"
    _verbs: dict[str, str] = field(init=False, repr=False, compare=False)
    _cards: dict[str, Card] = field(init=False, repr=False, compare=False)
    _separators: frozenset[str] = field(init=False, repr=False, compare=False)
    _fillers: frozenset[str] = field(init=False, repr=False, compare=False)
    _claim_extras: frozenset[str] = field(init=False, repr=False, compare=False)
    _every: frozenset[str] = field(init=False, repr=False, compare=False)
    _known: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        assert set(self.verbs.values()) == set(VERBS), self.language
        assert set(self.spelled) == set(VERBS), self.language
        assert set(self.names) == set(CARDS), self.language
        verbs = {fold(w): v for w, v in self.verbs.items()}
        cards = {fold(w): c for w, c in self.cards.items()}
        separators = frozenset(fold(w) for w in self.separators)
        fillers = frozenset(fold(w) for w in self.fillers)
        claim_extras = frozenset(fold(w) for w in self.claim_extras)
        every = frozenset(fold(w) for w in self.every)
        assert not every & fillers, self.language
        folded: dict[str, object] = {
            "_verbs": verbs,
            "_cards": cards,
            "_separators": separators,
            "_fillers": fillers,
            "_claim_extras": claim_extras,
            "_every": every,
        }
        for name, value in folded.items():
            object.__setattr__(self, name, value)
        known = set(verbs) | set(cards) | separators | fillers | claim_extras | every
        object.__setattr__(self, "_known", tuple(sorted(known, key=len, reverse=True)))

    def card_name(self, card: Card) -> str:
        return self.names[card]

    def write(self, move: Move) -> str:
        """``move`` in this language's words (the canonical form for English)."""
        if isinstance(move, TakeGood):
            return self.spelled["take"].format(card=self.names[move.good])
        if isinstance(move, Exchange):
            return self.spelled["exchange"].format(
                taken=" ".join(self.names[c] for c in move.taken),
                given=" ".join(self.names[c] for c in move.given),
            )
        if isinstance(move, Sell):
            count = str(move.count).translate(str.maketrans("0123456789", self.digits))
            return self.spelled["sell"].format(count=count, card=self.names[move.good])
        verb = {TakeCamels: "camels", Resign: "resign", Timeout: "timeout", Claim: "claim"}
        return self.spelled[verb[type(move)]]


def _english_forms() -> dict[str, Card]:
    forms: dict[str, Card] = {}
    for card in CARDS:
        for suffix in ("", "s", "es"):
            forms.setdefault(card.word + suffix, card)
    return forms


ENGLISH = Vocabulary(
    language="en",
    verbs={
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
    },
    cards=_english_forms(),
    separators=("for", "with", "give", "giving", "->", "=>", "→"),
    fillers=("and", "the", "my", "of", "&", "a"),
    spelled={
        "take": "take {card}",
        "camels": "camels",
        "exchange": "exchange {taken} for {given}",
        "sell": "sell {count} {card}",
        "resign": "resign",
        "timeout": "timeout",
        "claim": "claim",
    },
    names={card: card.word for card in CARDS},
    claim_extras=("win",),
    every=("all", "every"),
)


def move_line(text: str) -> str:
    """The first line that is neither blank nor quoted email text (``> …``), as it
    looks: without invisible characters, trailing punctuation or enclosing quotes."""
    for line in visible(text).splitlines():
        stripped = line.strip()
        if stripped.startswith(">"):
            continue
        if trimmed := _trimmed(stripped):
            return trimmed
    return ""


def _segment(run: str, vocab: Vocabulary) -> list[str]:
    """Split ``卖3张布料`` into known words and digit runs, longest word first."""
    out: list[str] = []
    i = 0
    while i < len(run):
        if run[i].isdigit() or run[i] in "x×":
            j = i + 1
            while j < len(run) and (run[j].isdigit() or run[j] in "x×"):
                j += 1
            out.append(run[i:j])
            i = j
            continue
        word = next((w for w in vocab._known if run.startswith(w, i)), None)
        if word is None:  # unknown: keep the rest whole, so the error quotes it
            out.append(run[i:])
            break
        out.append(word)
        i += len(word)
    return out


def _tokens(line: str, vocab: Vocabulary) -> list[str]:
    tokens: list[str] = []
    for token in _SPLIT.split(fold(line)):
        if not token:
            continue
        if vocab.segment and token not in vocab._known and _COUNT.match(token) is None:
            tokens.extend(_segment(token, vocab))
        else:
            tokens.append(token)
    return [t for t in tokens if t not in vocab._fillers]


def _prefix_match(word: str, table: Mapping[str, object]) -> list[str]:
    if word in table:
        return [word]
    return [name for name in table if name.startswith(word)]


def _card(word: str, vocab: Vocabulary) -> Card:
    found = _prefix_match(word, vocab._cards)
    cards = sorted({vocab._cards[name] for name in found})
    if len(cards) == 1:
        return cards[0]
    if len(cards) > 1:
        choices = " or ".join(vocab.names[card] for card in cards)
        raise InvalidMoveError("ambiguous_card", word=word, choices=choices)
    raise InvalidMoveError("unknown_card", word=word)


def _count(word: str) -> int | None:
    match = _COUNT.match(word)
    if not match or word in ("x", "×"):
        return None
    n = int(match.group(1))
    if not 1 <= n <= 11:
        raise InvalidMoveError("bad_count", word=word)
    return n


def _card_list(tokens: list[str], vocab: Vocabulary) -> list[Card]:
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
        card = _card(word, vocab)
        n = pending if pending is not None else 1
        cards.extend([card] * n)
        last_run = (card, n, pending is not None)
        pending = None
    if pending is not None:
        raise InvalidMoveError("dangling_count", count=pending)
    return cards


def _split_exchange(tokens: list[str], vocab: Vocabulary) -> tuple[list[str], list[str]] | None:
    for i, word in enumerate(tokens):
        if word in vocab._separators:
            return tokens[:i], tokens[i + 1 :]
    return None


def _exchange(taken_words: list[str], given_words: list[str], vocab: Vocabulary) -> Exchange:
    taken = _card_list(taken_words, vocab)
    given = _card_list(given_words, vocab)
    if Card.CAMEL in taken:
        raise InvalidMoveError("exchange_camel_taken")
    if not taken or not given:
        raise InvalidMoveError("exchange_needs_for")
    return Exchange(tuple(taken), tuple(given))


def _verb(tokens: list[str], vocab: Vocabulary) -> tuple[str, list[str]]:
    """The verb and the words after it; a verb may be two words (``λήξη χρόνου``)."""
    if len(tokens) > 1 and (pair := f"{tokens[0]} {tokens[1]}") in vocab._verbs:
        return vocab._verbs[pair], tokens[2:]
    word = tokens[0]
    found = _prefix_match(word, {w: v for w, v in vocab._verbs.items() if " " not in w})
    verbs = {vocab._verbs[name] for name in found}
    if len(verbs) != 1 or (len(word) < 2 and word not in vocab._verbs):
        raise InvalidMoveError("unknown_verb", word=word)
    return verbs.pop(), tokens[1:]


def parse_move(text: str, vocab: Vocabulary = ENGLISH, hand: Sequence[int] | None = None) -> Move:
    """Read one move; ``InvalidMoveError`` says what could not be read.

    ``hand`` is the mover's hand (a count per card, indexed by ``Card``), which
    "sell all leather" is read against; the parser returns a plain move either
    way, so what is logged and checked is the move the player meant. Words are
    compared folded (``κρασί`` as ``κρασι``), but an error quotes the word as the
    player typed it (without the invisible characters it may have carried).
    """
    if not isinstance(text, str):
        raise InvalidMoveError("empty")
    line = move_line(text[:MAX_TEXT])
    try:
        return _read(_tokens(line, vocab), vocab, hand)
    except InvalidMoveError as error:
        word = error.params.get("word")
        typed = _as_typed(line).get(word) if isinstance(word, str) else None
        if typed is None or typed == word:
            raise
        raise InvalidMoveError(error.code, **{**error.params, "word": typed}) from None


def _as_typed(line: str) -> dict[str, str]:
    """Each folded word of ``line`` mapped to the word as it was typed."""
    typed: dict[str, str] = {}
    for token in _SPLIT.split(unicodedata.normalize("NFKC", line)):
        if token:
            typed.setdefault(fold(token), token)
    return typed


def _read(tokens: list[str], vocab: Vocabulary, hand: Sequence[int] | None) -> Move:
    if not tokens:
        raise InvalidMoveError("empty")
    if tokens[0] in vocab._every:  # "all camels", "全部骆驼"
        rest = [w for w in tokens if w not in vocab._every]
        with contextlib.suppress(InvalidMoveError):
            if rest and _verb(rest, vocab) == ("camels", []):
                return TakeCamels()
        raise InvalidMoveError("unknown_verb", word=tokens[0])
    verb, rest = _verb(tokens, vocab)
    every = next((w for w in rest if w in vocab._every), None)

    if verb in _STANDALONE:
        if rest and not (verb == "claim" and all(w in vocab._claim_extras for w in rest)):
            raise InvalidMoveError("standalone_extra", word=vocab.spelled[verb])
        return _STANDALONE[verb]()

    if verb == "camels":
        if any(w not in vocab._every for w in rest):
            raise InvalidMoveError("camels_extra")
        return TakeCamels()

    if verb == "exchange":
        parts = _split_exchange(rest, vocab)
        if parts is None:
            raise InvalidMoveError("exchange_needs_for")
        if every is not None:
            raise InvalidMoveError("all_not_here", word=every)
        return _exchange(*parts, vocab)

    words = [w for w in rest if w not in vocab._every]
    if verb == "take":
        parts = _split_exchange(rest, vocab)
        if parts is not None:
            if every is not None:
                raise InvalidMoveError("all_not_here", word=every)
            return _exchange(*parts, vocab)
        cards = _card_list(words, vocab)
        if not cards:
            raise InvalidMoveError("take_needs_one_good")
        if all(card is Card.CAMEL for card in cards):
            if len(cards) > 1:
                raise InvalidMoveError("camels_take_all")
            return TakeCamels()  # "take camels", "take all camels"
        if every is not None:
            raise InvalidMoveError("all_not_here", word=every)
        if Card.CAMEL in cards:
            raise InvalidMoveError("take_needs_one_good")
        if len(cards) > 1:
            raise InvalidMoveError(
                "take_several",
                count=len(cards),
                cards=" ".join(vocab.names[c] for c in sorted(cards)),
            )
        return TakeGood(cards[0])

    # sell
    cards = _card_list(words, vocab)
    if not cards:
        raise InvalidMoveError("sell_needs_cards")
    kinds = sorted(set(cards))
    if Card.CAMEL in kinds:
        raise InvalidMoveError("sell_camel")
    if len(kinds) > 1:
        # the cards' own words: the reader's layer names them and joins them its way
        raise InvalidMoveError("sell_one_type", goods=", ".join(c.word for c in kinds))
    if every is None:
        return Sell(kinds[0], len(cards))
    counted = len(cards) > 1 or any(_COUNT.match(w) for w in words)
    return _sell_all(kinds[0], len(cards) if counted else None, every, hand)


def _sell_all(good: Card, count: int | None, word: str, hand: Sequence[int] | None) -> Sell:
    """Selling "all" of ``good``: every one in ``hand``, or a refusal that says why not.

    A count written beside "all" must agree with the hand; it is never preferred
    to it, nor it to the count.
    """
    if hand is None:
        raise InvalidMoveError("sell_all_needs_hand", word=word)
    have = hand[good]
    if have == 0:
        raise IllegalMoveError("sell_all_none", card=good.word)
    if count is not None and count != have:
        raise IllegalMoveError("sell_all_count", have=have, card=good.word, count=count)
    if good.is_precious and have < 2:
        raise IllegalMoveError("sell_all_too_few", have=have, card=good.word)
    return Sell(good, have)


def format_move(move: Move, vocab: Vocabulary = ENGLISH) -> str:
    """The text of a move in ``vocab``'s words; in English, the canonical form (``str(move)``)."""
    return str(move) if vocab is ENGLISH else vocab.write(move)
