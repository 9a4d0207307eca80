"""Build arbitrary positions for rule tests: cards are written as in the notation."""

from __future__ import annotations

from pbem.engine import Card, Match
from pbem.engine.cards import BONUS_TOKENS, GOODS, GOODS_TOKENS
from pbem.engine.round import Round


def cards(text: str) -> list[Card]:
    return [Card.from_word(w) for w in text.split()]


def counts(text: str) -> tuple[int, ...]:
    out = [0] * 7
    for card in cards(text):
        out[card] += 1
    return tuple(out)


def make_round(
    *,
    hands: tuple[str, str] = ("", ""),
    herds: tuple[int, int] = (0, 0),
    market: str = "camel camel camel diamond gold",
    deck: str = "leather leather leather leather leather",
    discard: str = "",
    tokens_left: dict[str, int] | None = None,
    bonus: tuple[tuple[int, ...], ...] | None = None,
    goods_won: tuple[tuple[int, ...], tuple[int, ...]] = ((), ()),
    bonus_won: tuple[tuple[int, ...], tuple[int, ...]] = ((), ()),
    to_move: int = 0,
    starter: int = 0,
    number: int = 1,
) -> Round:
    """A round in any position; ``tokens_left`` says how many tokens each named pile still has."""
    r = Round.__new__(Round)
    r.number = number
    r.starter = starter
    r.deck = tuple(int(c) for c in cards(deck))
    r.top = 0
    r.market = counts(market)
    r.hands = (counts(hands[0]), counts(hands[1]))
    r.herds = herds
    r.discard = counts(discard)
    left = tokens_left or {}
    r.tokens_taken = tuple(
        len(GOODS_TOKENS[g]) - left.get(g.word, len(GOODS_TOKENS[g])) for g in GOODS
    )
    r.bonus = bonus if bonus is not None else tuple(BONUS_TOKENS[s] for s in (3, 4, 5))
    r.bonus_taken = (0, 0, 0)
    r.goods_won = goods_won
    r.bonus_won = bonus_won
    r.to_move = to_move
    r.end = None
    return r


def make_match(r: Round, *, seed: bytes = bytes(32), seals: tuple[int, int] = (0, 0)) -> Match:
    """A match whose current round is ``r``."""
    m = Match.new(seed)
    m.round = r
    m.seals = seals
    return m
