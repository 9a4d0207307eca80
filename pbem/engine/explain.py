"""Moves in plain words: the preview before Confirm, and the opponent's move in a mail.

Both are computed by applying the move (``Round.apply`` for its effect on the
table, ``Match.apply`` for what it ends), so what a player is told is what the
rules do; nothing here decides legality.
"""

from __future__ import annotations

from collections import Counter

from .cards import Card
from .match import Match
from .moves import Claim, Exchange, Move, Resign, Sell, TakeCamels, TakeGood, Timeout
from .round import Round


def _n(n: int, card: Card) -> str:
    """``2 camels``, ``2 diamonds``; the other goods read as mass nouns (``2 spice``)."""
    plural = n != 1 and card in (Card.CAMEL, Card.DIAMOND)
    return f"{n} {card.word}{'s' if plural else ''}"


def _cards(cards: tuple[Card, ...]) -> str:
    parts = [_n(n, card) for card, n in sorted(Counter(cards).items())]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _ending(before: Match, after: Match, player: str) -> str:
    if after.results == before.results:
        return ""
    result = after.results[-1]
    why = "three goods piles are empty" if result.end == "piles" else "the deck is empty"
    text = f" The round ends ({why})."
    if after.is_over:
        text += f" {player} win the match." if player == "You" else f" {player} wins the match."
    return text


def _sale(before: Round, after: Round, move: Sell, seat: int) -> str:
    won = after.goods_won[seat][len(before.goods_won[seat]) :]
    if won:
        text = f" for goods token{'s' if len(won) > 1 else ''} {', '.join(map(str, won))}"
    else:
        text = f": no {move.good.word} tokens are left"
    if len(after.bonus_won[seat]) > len(before.bonus_won[seat]):
        text += " and a bonus token"
    elif move.count >= 3:
        text += " (that bonus pile is empty)"
    return text


def _effect(before: Match, move: Move, seat: int, subject: str, past: bool) -> tuple[str, Match]:
    after = before.apply(move, seat)
    r0 = before.round
    r1 = r0.apply(move, seat)
    take, give, sell = ("took", "gave back", "sold") if past else ("take", "give back", "sell")
    if isinstance(move, TakeGood):
        text = f"{subject} {take} {_n(1, move.good)} from the market"
    elif isinstance(move, TakeCamels):
        text = f"{subject} {take} all {r0.market[Card.CAMEL]} camels from the market"
    elif isinstance(move, Exchange):
        text = f"{subject} {take} {_cards(move.taken)} and {give} {_cards(move.given)}"
    else:
        assert isinstance(move, Sell)
        text = f"{subject} {sell} {_n(move.count, move.good)}" + _sale(r0, r1, move, seat)
    if isinstance(move, TakeGood | TakeCamels) and r1.deck_size < r0.deck_size:
        text += f"; the deck refills the market with {r0.deck_size - r1.deck_size}"
    if not past and r1.end is None:
        text += f"; your hand will hold {r1.hand_size(seat)} cards"
    return text + ".", after


def preview(before: Match, move: Move, seat: int) -> str:
    """What will happen if ``seat`` plays ``move`` now (``IllegalMoveError`` if it is illegal)."""
    if isinstance(move, Resign | Claim | Timeout):
        before.apply(move, seat)
        return {
            Resign: "You resign: your opponent wins the match at once.",
            Claim: "You claim the win: your opponent's time for this move ran out.",
            Timeout: "Your time for this move runs out.",
        }[type(move)]
    text, after = _effect(before, move, seat, "You", past=False)
    return text + _ending(before, after, "You")


def narrate(before: Match, move: Move, seat: int, name: str) -> str:
    """The move in the past tense, as the opponent and spectators may read it."""
    if isinstance(move, Resign):
        return f"{name} resigned."
    if isinstance(move, Timeout):
        return f"{name}'s time for this move ran out."
    if isinstance(move, Claim):
        return f"{name} claimed the win on time."
    text, after = _effect(before, move, seat, name, past=True)
    return text + _ending(before, after, name)
