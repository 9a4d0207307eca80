"""The computer player: it knows only what a seat knows.

Pure like the engine (no I/O, no server library): it imports only ``pbem.engine`` and
the standard library (tests/test_layers.py holds it to that).

API::

    from pbem.ai import choose, information
    info = information(observe(match, Viewer.seat(seat)), round_moves)
    move = choose(info, level="normal", seed=7)

``choose`` takes an ``Information`` (a seat's ``Observation`` and the public moves of the
round in progress), never a ``Match``: it is given nothing hidden, so it cannot read the
opponent's hand or the deck even by mistake. The same information, level and seed give
the same move. ``statistics(info, level, seed)`` is the same search's table of the moves
it weighed. ``play(match, seat, round_moves, ...)`` is the shortcut that builds the
information from a match through the observer. ``analysis.py`` judges the moves of a
finished game with the same search (docs/analysis.md). ``VERSION`` names the computer's
play, and ``move_seed`` its randomness for one move of a game: with both, ``reproduce.py``
plays a finished game's computer moves again from its published record.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence
from dataclasses import dataclass

from pbem.engine.information import Dealer, Information, information
from pbem.engine.match import Match
from pbem.engine.moves import Move
from pbem.engine.views import Viewer, observe

from .search import MoveStat, ranked, search

#: The computer's play: the search, its levels and its dice. Bumped with every change that
#: can change a move for the same position and seed (tests/ai/test_player.py pins moves
#: against it); each computer move names it in the log and the record (docs/computer.md,
#: "Fairness"), so an auditor knows which pbem plays it again. ``pbem-ai/2``: pbem 0.3.0 on.
VERSION = "pbem-ai/2"


def move_seed(seed: bytes, n: int) -> bytes:
    """The computer's randomness for move ``n`` of the game dealt from ``seed``:
    HMAC-SHA256(seed, "pbem/computer:" + n), so that once the seed is published anyone
    can play the move again (``reproduce``)."""
    return hmac.new(seed, f"pbem/computer:{n}".encode("ascii"), hashlib.sha256).digest()


def player_name(level: str) -> str:
    """The computer's name in a game and its record, "Computer (normal)": the same in every
    language (pages and mails show it translated), and nothing renames it."""
    return f"Computer ({level})"


@dataclass(frozen=True, slots=True)
class Level:
    """A level: how many iterations its search runs, and how often it plays carelessly
    instead (any take, the camels or any sale, at random), so that a beginner can beat
    ``easy`` (docs/computer.md, "Levels")."""

    name: str
    iterations: int
    careless: float = 0.0


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (Level("easy", 100, careless=0.4), Level("normal", 800), Level("strong", 2400))
}


def choose(info: Information, level: str = "normal", seed: int | bytes | str = 0) -> Move:
    """The move the computer plays from ``info`` at ``level``; deterministic in ``seed``."""
    if info.view.table.to_move != info.seat:
        raise ValueError("it is not this seat's turn")
    rnd = random.Random(seed if not isinstance(seed, bytes) else int.from_bytes(seed, "big"))
    chosen = LEVELS[level]
    if chosen.careless and rnd.random() < chosen.careless:
        # a take, the camels or a sale, any: they depend on the seat's own hand and the
        # market only, which are the same in every world the information allows
        simple = Dealer(info).deal(rnd).simple_moves()
        return simple[int(rnd.random() * len(simple))]
    return search(info, chosen.iterations, rnd)


def statistics(
    info: Information, level: str = "normal", seed: int | bytes | str = 0
) -> list[MoveStat]:
    """The moves ``choose`` weighed, best first, with their visits and mean reward: the same
    search and dice, so ``statistics(...)[0].move == choose(...)`` (but for the careless
    moves of a level that makes them). The analysis uses it."""
    if info.view.table.to_move != info.seat:
        raise ValueError("it is not this seat's turn")
    rnd = random.Random(seed if not isinstance(seed, bytes) else int.from_bytes(seed, "big"))
    return ranked(info, LEVELS[level].iterations, rnd)


def play(
    match: Match,
    seat: int,
    round_moves: Sequence[Move] = (),
    level: str = "normal",
    seed: int | bytes | str = 0,
) -> Move:
    """``choose`` for ``seat`` of ``match``, seen through the observer (nothing hidden passes)."""
    return choose(information(observe(match, Viewer.seat(seat)), round_moves), level, seed)


__all__ = [
    "LEVELS",
    "VERSION",
    "Information",
    "Level",
    "MoveStat",
    "choose",
    "information",
    "move_seed",
    "play",
    "player_name",
    "statistics",
]
