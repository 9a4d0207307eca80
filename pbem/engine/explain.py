"""What a move does, as facts: the preview before Confirm, and a logged move told to readers.

Both are computed by applying the move (``Round.apply`` for its effect on the
table, ``Match.apply`` for what it ends), so what a player is told is what the
rules do; nothing here decides legality. The engine speaks no language: an
``Account`` is data, and ``pbem.i18n.words`` tells it in the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card
from .match import Match
from .moves import Claim, Move, Resign, Sell, TakeCamels, TakeGood, Timeout
from .round import Round


@dataclass(frozen=True)
class Account:
    """One move and its consequences.

    ``name`` is the mover as others read it; ``None`` addresses the mover ("you"),
    which is also when the move is still to come (a preview).
    """

    move: Move
    seat: int
    name: str | None
    camels: int = 0  #: camels taken from the market
    tokens: tuple[int, ...] = ()  #: goods tokens a sale won, best first
    bonus: bool | None = None  #: a sale of 3+ won a bonus token (True) or found its pile empty
    refill: int = 0  #: cards the deck laid into the market
    hand_after: int | None = None  #: the mover's hand size after a preview's move
    round_end: str | None = None  #: "piles" or "deck" when this move ended the round
    match_won: bool = False  #: this move ended the match in the mover's favour

    @property
    def is_preview(self) -> bool:
        return self.name is None


def _account(before: Match, move: Move, seat: int, name: str | None) -> Account:
    if isinstance(move, Resign | Claim | Timeout):
        after = before.apply(move, seat)
        return Account(move, seat, name, match_won=after.winner == seat)
    after = before.apply(move, seat)
    r0: Round = before.round
    r1 = after.shown_round  # the round as this move left it, even if it ended it
    camels = refill = 0
    won: tuple[int, ...] = ()
    bonus: bool | None = None
    if isinstance(move, TakeCamels):
        camels = r0.market[Card.CAMEL]
    if isinstance(move, Sell):
        won = tuple(r1.goods_won[seat][len(r0.goods_won[seat]) :])
        if len(r1.bonus_won[seat]) > len(r0.bonus_won[seat]):
            bonus = True
        elif move.count >= 3:
            bonus = False
    if isinstance(move, TakeGood | TakeCamels):
        refill = r0.deck_size - r1.deck_size
    ended = after.ended_result
    return Account(
        move,
        seat,
        name,
        camels=camels,
        tokens=won,
        bonus=bonus,
        refill=refill,
        hand_after=r1.hand_size(seat) if name is None and r1.end is None else None,
        round_end=ended.end if ended is not None else None,
        match_won=after.is_over and after.winner == seat,
    )


def preview(before: Match, move: Move, seat: int) -> Account:
    """What will happen if ``seat`` plays ``move`` now (``IllegalMoveError`` if it is illegal)."""
    return _account(before, move, seat, None)


def narrate(before: Match, move: Move, seat: int, name: str) -> Account:
    """The move as it happened, for the opponent, spectators and the replay."""
    return _account(before, move, seat, name)
