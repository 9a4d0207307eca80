"""What one seat, or a spectator, may know (docs/rules.md §9, "What each player may see").

A view is its own value, built field by field from the state: it has no slot
for what its reader may not see, so no template or API answer can leak the
opponent's hand, bonus values or the deck order by forgetting to blank a field.

Herd sizes are open to everyone: every camel taken and given back is a public move,
so anyone who counts knows both herds; hiding them helped only those who count.

``observe(match, viewer)`` is the one observer (OpenSpiel's ``observation(state,
player)``): the live game and every step of a replay, round results included, are
seen through it. Everything (both hands, the deck, the bonus piles) is shown only
once the match is over or its seed is published; the engine refuses it otherwise.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from .cards import (
    BONUS_SIZES,
    CAMEL_TOKEN_VALUE,
    EXCHANGE_MINIMUM,
    GOODS,
    HAND_LIMIT,
    PRECIOUS_MINIMUM_SALE,
    Card,
)
from .match import Match, Outcome
from .moves import Exchange, Move, Sell, TakeCamels, TakeGood
from .round import Round, RoundResult


class Viewer(StrEnum):
    """Who looks: a seat, a spectator, or everyone once nothing is hidden any more."""

    SEAT_0 = "0"
    SEAT_1 = "1"
    PUBLIC = "public"
    ALL = "all"

    @classmethod
    def seat(cls, seat: int) -> Viewer:
        if seat not in (0, 1):
            raise ValueError("a seat is 0 or 1")
        return cls.SEAT_0 if seat == 0 else cls.SEAT_1


class HiddenError(ValueError):
    """The whole position was asked for while it is still hidden (the match runs)."""


@dataclass(frozen=True, slots=True)
class BonusPile:
    """A bonus pile as a page labels it: the sale size it rewards, and whether larger
    sales draw from it too (the last pile: "5+")."""

    size: int
    left: int
    or_more: bool


#: Market cards taken all at once, never one by one (docs/rules.md: camels).
TAKEN_TOGETHER: tuple[str, ...] = (Card.CAMEL.word,)


#: Where the cards a seat picks for a move lie (``picked``).
PLACES: tuple[str, ...] = ("market", "hand", "herd")


def picked(move: Move, market: tuple[Card, ...]) -> dict[str, tuple[str, ...]]:
    """The cards a seat picks on the table to make ``move``, by where they lie (``PLACES``),
    as card words in canonical order: the seat page maps a selection of cards to the move
    it means with this, so its script knows no rule. Camels given come from the herd."""
    if isinstance(move, TakeGood):
        return {"market": (move.good.word,)}
    if isinstance(move, TakeCamels):
        return {"market": tuple(c.word for c in market if c is Card.CAMEL)}
    if isinstance(move, Exchange):
        return {
            "market": tuple(c.word for c in move.taken),
            "hand": tuple(c.word for c in move.given if c is not Card.CAMEL),
            "herd": tuple(c.word for c in move.given if c is Card.CAMEL),
        }
    if isinstance(move, Sell):
        return {"hand": (move.good.word,) * move.count}
    return {}


def meant(cards: dict[str, tuple[str, ...]]) -> str:
    """The move a selection of cards writes, in the canonical notation, legal or not: the
    inverse of ``picked``, so that the rules (the parser, ``Match.apply``) and not the page
    say what is wrong with a selection. Market cards alone are taken (all camels:
    ``camels``); with cards given they are an exchange; hand cards alone are sold; cards
    given with nothing taken are an exchange that names nothing taken."""
    market, hand, herd = (tuple(cards.get(place, ())) for place in PLACES)
    given = hand + herd
    if market and not given:
        if all(word == Card.CAMEL.word for word in market):
            return "camels"
        return "take " + " ".join(market)
    if market:
        return f"exchange {' '.join(market)} for {' '.join(given)}"
    if herd:
        return f"exchange for {' '.join(given)}" if hand else "sell " + " ".join(herd)
    return "sell " + " ".join(hand)


@dataclass(frozen=True, slots=True)
class OpenPlayer:
    """What everybody may know of a player: card count, herd size, goods tokens, how many
    bonus tokens (the herd follows from the public moves, so it is shown, not left to counting)."""

    seat: int
    hand_size: int
    herd: int
    goods_tokens: tuple[int, ...]
    bonus_count: int

    @property
    def known_rupees(self) -> int:
        """What everybody can count of this player's rupees: goods tokens only."""
        return sum(self.goods_tokens)

    @property
    def bonus_known(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class OwnPlayer:
    """What a seat knows of itself."""

    seat: int
    hand: tuple[Card, ...]
    herd: int
    goods_tokens: tuple[int, ...]
    bonus_tokens: tuple[int, ...]

    @property
    def hand_size(self) -> int:
        return len(self.hand)

    @property
    def bonus_count(self) -> int:
        return len(self.bonus_tokens)

    @property
    def rupees(self) -> int:
        return sum(self.goods_tokens) + sum(self.bonus_tokens)

    @property
    def known_rupees(self) -> int:
        return self.rupees

    @property
    def bonus_known(self) -> bool:
        return True

    @property
    def hand_limit(self) -> int:
        """How many cards a hand may hold (pages show "3 of 7" without knowing the rule)."""
        return HAND_LIMIT


@dataclass(frozen=True, slots=True)
class Table:
    """The open part of the table that every view shares."""

    round: int
    to_move: int | None
    round_over: bool
    game_over: bool
    winner: int | None
    seals: tuple[int, int]
    overdue: int | None  # the seat to move whose time ran out (a claim is open against it)
    market: tuple[Card, ...]
    discard: tuple[Card, ...]
    deck_size: int
    tokens: dict[Card, tuple[int, ...]]  # goods tokens left per good, top first
    bonus_left: dict[int, int]  # how many bonus tokens each pile still has
    results: tuple[RoundResult, ...]  # rounds already scored

    @property
    def taken_together(self) -> tuple[str, ...]:
        """Market cards a click must take all of (the move builder selects them together)."""
        return TAKEN_TOGETHER

    @property
    def bonus_piles(self) -> tuple[BonusPile, ...]:
        """The bonus piles with what is left of each, labelled as the rules reward them."""
        last = BONUS_SIZES[-1]
        return tuple(BonusPile(s, self.bonus_left[s], s == last) for s in BONUS_SIZES)


@dataclass(frozen=True, slots=True)
class SeatView:
    """Seat ``me.seat``'s view: its own hand and bonus values; of the opponent, counts and herd."""

    table: Table
    me: OwnPlayer
    opponent: OpenPlayer

    @property
    def seat(self) -> int:
        return self.me.seat

    @property
    def my_turn(self) -> bool:
        return self.table.to_move == self.me.seat


@dataclass(frozen=True, slots=True)
class PublicView:
    """A spectator's view: no hand contents, no bonus values; counts and herd sizes."""

    table: Table
    players: tuple[OpenPlayer, OpenPlayer]


@dataclass(frozen=True, slots=True)
class FullView:
    """Everything, once nothing is hidden: both hands and bonus values, the deck, the piles."""

    table: Table
    players: tuple[OwnPlayer, OwnPlayer]
    deck: tuple[Card, ...]  # the draw pile, top first
    bonus: dict[int, tuple[int, ...]]  # each bonus pile's tokens left, top first


View = SeatView | PublicView | FullView


@dataclass(frozen=True, slots=True)
class Observation:
    """One viewer's sight of one moment: the view of the board, the round the move that
    led here ended (scored, as the board shows it), and how the match ended."""

    viewer: Viewer
    view: View
    round_ended: RoundResult | None
    outcome: Outcome | None

    def player(self, seat: int) -> OwnPlayer | OpenPlayer:
        """Seat ``seat`` as this viewer knows it."""
        view = self.view
        if isinstance(view, SeatView):
            return view.me if view.me.seat == seat else view.opponent
        return view.players[seat]


def may_see_all(match: Match, *, seed_published: bool = False) -> bool:
    """Whether the whole position may be shown: the match is over, or its seed is out
    (a record file carries it), so there is nothing left to hide."""
    return seed_published or match.is_over


def observe(
    match: Match, viewer: Viewer, *, seed_published: bool = False, step: bool = False
) -> Observation:
    """What ``viewer`` may know of ``match``: the one observer of the live game and replays.

    With ``step``, the board of a replay step: a move that ended a round shows that round
    as it ended, not the next deal. ``HiddenError`` for ``Viewer.ALL`` while hidden.
    """
    r = match.shown_round if step else match.round
    if viewer is Viewer.ALL:
        if not may_see_all(match, seed_published=seed_published):
            raise HiddenError("the position is hidden while the match runs")
        view: View = FullView(
            _table(match, r),
            (_own_player(r, 0), _own_player(r, 1)),
            r.deck_cards(),
            {size: r.bonus_left(size) for size in BONUS_SIZES},
        )
    elif viewer is Viewer.PUBLIC:
        view = PublicView(_table(match, r), (_open_player(r, 0), _open_player(r, 1)))
    else:
        seat = 0 if viewer is Viewer.SEAT_0 else 1
        view = SeatView(_table(match, r), _own_player(r, seat), _open_player(r, 1 - seat))
    ended = match.ended_result if step else None
    return Observation(viewer, view, ended, match.outcome())


def _table(match: Match, r: Round) -> Table:
    """The open table of round ``r`` of ``match`` (the round in play, or one as it ended)."""
    return Table(
        round=r.number,
        to_move=None if match.winner is not None else r.to_move,
        round_over=r.is_over,
        game_over=match.is_over,
        winner=match.winner,
        seals=match.seals,
        overdue=match.overdue,
        market=r.market_cards(),
        discard=r.discard_cards(),
        deck_size=r.deck_size,
        tokens={g: r.tokens_left(g) for g in GOODS},
        bonus_left={size: len(r.bonus_left(size)) for size in BONUS_SIZES},
        results=match.results,
    )


def _own_player(r: Round, seat: int) -> OwnPlayer:
    return OwnPlayer(
        seat=seat,
        hand=r.hand(seat),
        herd=r.herds[seat],
        goods_tokens=r.goods_won[seat],
        bonus_tokens=r.bonus_won[seat],
    )


def _open_player(r: Round, seat: int) -> OpenPlayer:
    return OpenPlayer(
        seat=seat,
        hand_size=r.hand_size(seat),
        herd=r.herds[seat],
        goods_tokens=r.goods_won[seat],
        bonus_count=len(r.bonus_won[seat]),
    )


def seat_view(match: Match, seat: int) -> SeatView:
    """What ``seat`` may know now."""
    if seat not in (0, 1):
        raise ValueError("a seat is 0 or 1")
    r = match.round
    return SeatView(_table(match, r), _own_player(r, seat), _open_player(r, 1 - seat))


def public_view(match: Match) -> PublicView:
    """What a spectator may know now."""
    r = match.round
    return PublicView(_table(match, r), (_open_player(r, 0), _open_player(r, 1)))


def view_to_json(view: SeatView | PublicView) -> dict[str, Any]:
    """A view as plain JSON data (cards as words), for the API and the seat's own export."""

    def plain(value: Any) -> Any:
        if isinstance(value, Card):
            return value.word
        if isinstance(value, dict):
            return {plain(k) if isinstance(k, Card) else str(k): plain(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return value

    return plain(asdict(view))


@dataclass(frozen=True, slots=True)
class RuleNumbers:
    """The numbers a summary of the rules names, for a page or mail that tells the rules
    before there is a view to read them from (an invitation to a game not dealt yet)."""

    #: How many cards a hand may hold (a seat's view says the same: ``OwnPlayer.hand_limit``).
    hand_limit: int = HAND_LIMIT
    #: The sale sizes that earn a bonus token, one pile each; the last pile also takes
    #: every larger sale ("5+", as ``Table.bonus_piles`` labels it).
    bonus_sizes: tuple[int, ...] = BONUS_SIZES
    #: What the camel token is worth to the round's larger herd.
    camel_token: int = CAMEL_TOKEN_VALUE
    #: The fewest cards an exchange takes from the market.
    exchange_minimum: int = EXCHANGE_MINIMUM
    #: The fewest cards a sale of diamonds, gold or silver holds.
    precious_minimum: int = PRECIOUS_MINIMUM_SALE


RULE_NUMBERS = RuleNumbers()
