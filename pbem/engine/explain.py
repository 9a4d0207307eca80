"""What a move does, as facts: the preview before Confirm, and a logged move told to readers.

Facts are read off observations (``views.observe``), never off the state behind them, so
no sentence built on them can tell a reader what the reader may not know:

- a narration reads the public's sight of the table before the move and as the move
  left it: everything it reports is open once the move is made;
- a preview reads worlds sampled from the mover's own information
  (``information.Information``): the move is applied there, never in the real match. Who
  takes a round's seal can depend on face-down bonus tokens, so the preview applies the
  move in the world luckiest for the mover and in the unluckiest, and names the seal's
  winner only when both agree (``Seal.UNDECIDED`` otherwise).

Both apply the move with the rules (``Match.apply``), so what a player is told is what the
rules do; nothing here decides legality. The engine speaks no language: an ``Account``
is data, and ``pbem.i18n.words`` tells it in the reader's language.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from enum import StrEnum

from .cards import Card
from .errors import IllegalMoveError
from .information import Information, Luck, information
from .match import Match
from .moves import Claim, Move, Resign, Sell, TakeCamels, TakeGood, Timeout
from .views import Observation, Viewer, observe


class Seal(StrEnum):
    """Who takes the seal of the round a previewed move ends, as far as the mover can know."""

    MOVER = "mover"
    OPPONENT = "opponent"
    NOBODY = "nobody"  #: a tie on every count: no seal
    UNDECIDED = "undecided"  #: the face-down bonus tokens decide it


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
    match_won: bool = False  #: this move ended the match in the mover's favour (a preview: surely)
    match_lost: bool = False  #: a preview's move surely ends the match in the opponent's favour
    seal: Seal | None = None  #: a preview's move that ends the round: who takes its seal

    @property
    def is_preview(self) -> bool:
        return self.name is None


def _facts(before: Observation, after: Observation, move: Move, seat: int) -> Account:
    """The open facts of ``move`` by ``seat``, from the table before it and as it left it."""
    outcome = after.outcome
    won = outcome is not None and outcome.winner == seat
    if isinstance(move, Resign | Claim | Timeout):
        return Account(move, seat, None, match_won=won)
    table0, table1 = before.view.table, after.view.table
    mine0, mine1 = before.player(seat), after.player(seat)
    camels = refill = 0
    tokens: tuple[int, ...] = ()
    bonus: bool | None = None
    if isinstance(move, TakeCamels):
        camels = table0.market.count(Card.CAMEL)
    if isinstance(move, Sell):
        tokens = mine1.goods_tokens[len(mine0.goods_tokens) :]
        if mine1.bonus_count > mine0.bonus_count:
            bonus = True
        elif move.count >= 3:
            bonus = False
    if isinstance(move, TakeGood | TakeCamels):
        refill = table0.deck_size - table1.deck_size
    ended = after.round_ended
    return Account(
        move,
        seat,
        None,
        camels=camels,
        tokens=tokens,
        bonus=bonus,
        refill=refill,
        round_end=ended.end if ended is not None else None,
        match_won=won,
    )


def _step(before: Match, move: Move, seat: int) -> tuple[Observation, Observation]:
    """The public's sight of the table before ``move`` and as the move left it."""
    after = before.apply(move, seat)
    return observe(before, Viewer.PUBLIC), observe(after, Viewer.PUBLIC, step=True)


def narrate(before: Match, move: Move, seat: int, name: str) -> Account:
    """The move as it happened, for the opponent, spectators and the replay."""
    return replace(_facts(*_step(before, move, seat), move, seat), name=name)


def preview(before: Match, move: Move, seat: int) -> Account:
    """What will happen if ``seat`` plays ``move`` now, as far as ``seat`` can know
    (``IllegalMoveError`` if it is illegal): only the seat's observation is read."""
    return foresee(information(observe(before, Viewer.seat(seat))), move)


def foresee(info: Information, move: Move) -> Account:
    """A preview from a seat's information alone (``preview`` builds it from a match)."""
    if info.view.table.game_over:
        raise IllegalMoveError("game_over")
    seat = info.seat
    lucky = info.world(random.Random(0), Luck.BEST)
    ends = [lucky.apply(move, seat)]  # an illegal move is refused here, as in the real match
    after = observe(ends[0], Viewer.PUBLIC, step=True)
    facts = _facts(observe(lucky, Viewer.PUBLIC), after, move, seat)
    seal = hand_after = None
    if facts.round_end is not None:  # only here may the hidden bonus tokens count
        ends.append(info.world(random.Random(0), Luck.WORST).apply(move, seat))
        takers = {m.ended_result.seal for m in ends if m.ended_result is not None}
        seal = Seal.UNDECIDED if len(takers) != 1 else _seal(takers.pop(), seat)
    elif not isinstance(move, Resign | Claim | Timeout):
        hand_after = after.player(seat).hand_size
    return replace(
        facts,
        match_won=all(m.winner == seat for m in ends),
        match_lost=all(m.winner == 1 - seat for m in ends),
        seal=seal,
        hand_after=hand_after,
    )


def _seal(taker: int | None, mover: int) -> Seal:
    if taker is None:
        return Seal.NOBODY
    return Seal.MOVER if taker == mover else Seal.OPPONENT
