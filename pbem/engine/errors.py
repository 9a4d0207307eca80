"""Errors a player can read.

Each error carries a stable ``code`` and its ``params`` (which rule, which
cards), so a layer above can render it in the player's language; ``str(error)``
is the English text, which the engine writes for players, not for programmers.
"""

from __future__ import annotations

from typing import Any


def N_(text: str) -> str:
    """Marks a text for the catalogs (``pybabel extract -k N_``); translated in pbem.i18n."""
    return text


#: English text of every error, by code; ``{name}`` placeholders come from params.
MESSAGES: dict[str, str] = {
    # unreadable text
    "empty": N_(
        "no move found: write one, e.g. 'take diamond', 'camels', "
        "'exchange spice spice for camel camel' or 'sell 3 cloth'"
    ),
    "unknown_verb": N_("'{word}' is not a move: start with take, camels, exchange or sell"),
    "unknown_card": N_(
        "'{word}' is not a card: the cards are diamond, gold, silver, cloth, "
        "spice, leather and camel"
    ),
    "ambiguous_card": N_("'{word}' could be {choices}: write more of the word"),
    "bad_count": N_("'{word}' is not a count a move can use"),
    "dangling_count": N_("the count {count} is not followed by a card"),
    "take_needs_one_good": N_(
        "'take' takes one good, e.g. 'take gold'; to take several, "
        "exchange them: 'exchange spice spice for camel camel'"
    ),
    "take_several": N_(
        "taking {count} cards is an exchange: say what you give back, e.g. 'exchange {cards} for …'"
    ),
    "camels_take_all": N_("camels are taken all at once: write 'camels'"),
    "camels_extra": N_("'camels' takes all the camels in the market and nothing else"),
    "standalone_extra": N_("'{word}' stands alone: write just '{word}'"),
    "exchange_needs_for": N_(
        "an exchange names what you take and what you give back: "
        "'exchange spice spice for camel camel'"
    ),
    "exchange_camel_taken": N_(
        "camels cannot be taken in an exchange: write 'camels' to take all of them"
    ),
    "sell_needs_cards": N_("say what to sell, e.g. 'sell 3 cloth'"),
    "sell_one_type": N_("a sale is of one type of good only, not {goods}"),
    "sell_camel": N_("camels are never sold"),
    "all_not_here": N_(
        "'{word}' means every card of a good in your hand ('sell all leather') "
        "or every camel in the market ('camels'): it has no clear meaning in this move"
    ),
    "sell_all_needs_hand": N_(
        "'{word}' is counted in your hand, which is not known here: "
        "write the count, e.g. 'sell 3 cloth'"
    ),
    # forbidden by the rules
    "game_over": N_("the game is over: no more moves"),
    "round_over": N_("the round is over"),
    "not_your_turn": N_("it is not your turn: seat {to_move} is to move"),
    "hand_limit_take": N_(
        "you hold {hand} cards: taking one more would exceed the hand limit of 7"
    ),
    "hand_limit_exchange": N_(
        "after this exchange you would hold {after} cards in hand: the hand limit is 7"
    ),
    "not_in_market": N_("the market has {have} {card}: you cannot take {want}"),
    "no_camels_in_market": N_("there are no camels in the market to take"),
    "exchange_too_few": N_(
        "an exchange takes 2 or more cards from the market; to take one card, write 'take <good>'"
    ),
    "exchange_unequal": N_(
        "an exchange gives back as many cards as it takes: you take {taken} and give {given}"
    ),
    "exchange_same_type": N_(
        "you may not take and give back the same type of good ({card}) in one exchange"
    ),
    "not_in_hand": N_("you hold {have} {card}: you cannot give or sell {want}"),
    "not_in_herd": N_("your herd has {have} camels: you cannot give {want}"),
    "sell_too_few_precious": N_("{card} must be sold at least 2 at a time"),
    "sell_nothing": N_("a sale sells at least one card"),
    "sell_all_none": N_("you hold no {card}: there is none to sell"),
    "sell_all_count": N_("you hold {have} {card}: 'all' is {have}, not {count}"),
    "sell_all_too_few": N_("you hold {have} {card}: {card} must be sold at least 2 at a time"),
    "resign_needs_seat": N_("a resignation, timeout or claim must say which seat it is for"),
    "timeout_not_to_move": N_("only the seat to move can run out of time"),
    "already_overdue": N_("this seat's time has already run out"),
    "claim_not_overdue": N_("you can claim the win only after your opponent's time has run out"),
}


class MoveError(ValueError):
    """A move that was not made, with a reason a player can read."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(MESSAGES[code].format(**params))

    @property
    def message(self) -> str:
        return str(self)


class InvalidMoveError(MoveError):
    """Text that is not a move at all (cannot be read)."""


class IllegalMoveError(MoveError):
    """A readable move that the position forbids."""
