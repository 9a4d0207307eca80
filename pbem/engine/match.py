"""The match: rounds dealt from one seed until a player holds two seals.

``Match`` is the state the rest of the project replays: ``Match.new(seed)``
then ``apply`` for each logged move. When a move ends a round, the round is
scored at once and, unless the match is decided, the next one is dealt, so
the state after any move is always either a round in progress or a finished
match. The match keeps each finished round as it ended (``rounds``), and the
round the last move ended (``ended_round``), so nobody rebuilds one by
re-applying a move, and it says how it ended (``outcome()``), so nobody reads
it from strings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from . import rng
from .cards import SEALS_TO_WIN
from .errors import IllegalMoveError
from .moves import Claim, Move, Resign, Timeout
from .round import Round, RoundResult


class Status(StrEnum):
    IN_PROGRESS = "in_progress"
    FINISHED = "finished"


class Termination(StrEnum):
    """How a match ends (a ``timeout`` entry ends nothing: it opens the way to a claim)."""

    SEALS = "seals"  # a player won its second seal
    RESIGNATION = "resignation"  # a player resigned
    CLAIM = "claim"  # a player claimed the win after the other's timeout


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished match ended: pages and mails ask this, they read no strings."""

    winner: int
    seals: tuple[int, int]
    termination: Termination = Termination.SEALS

    @property
    def loser(self) -> int:
        return 1 - self.winner

    @property
    def resigned(self) -> int | None:
        """The seat that resigned, if the match ended so."""
        return self.loser if self.termination is Termination.RESIGNATION else None

    @property
    def claimed(self) -> int | None:
        """The seat that claimed the win on time, if the match ended so."""
        return self.winner if self.termination is Termination.CLAIM else None


class Match:
    """A whole match of Jaipur, immutable; ``apply`` returns the next state."""

    __slots__ = (
        "claimed",
        "ended_round",
        "first_player",
        "overdue",
        "resigned",
        "results",
        "round",
        "rounds",
        "seals",
        "seed",
        "winner",
    )

    seed: bytes
    first_player: int
    results: tuple[RoundResult, ...]
    rounds: tuple[Round, ...]  # each finished round as it ended, in step with ``results``
    ended_round: Round | None  # the round the last move ended, as it ended (else None)
    seals: tuple[int, int]
    round: Round
    winner: int | None
    resigned: int | None  # the seat that resigned, if the match ended so
    overdue: int | None  # the seat to move whose time ran out (until it moves)
    claimed: int | None  # the seat that won by claiming the other's timeout

    @classmethod
    def new(cls, seed: bytes, first_player: int | None = None) -> Match:
        """Round 1 dealt from ``seed``; its starter is chosen or drawn from the seed."""
        if len(seed) != rng.SEED_BYTES:
            raise ValueError("a seed is 32 bytes")
        starter = rng.first_player(seed) if first_player is None else first_player
        if starter not in (0, 1):
            raise ValueError("the first player is seat 0 or 1")
        m = cls.__new__(cls)
        m.seed = seed
        m.first_player = starter
        m.results = ()
        m.rounds = ()
        m.ended_round = None
        m.seals = (0, 0)
        m.round = Round.deal(seed, 1, starter)
        m.winner = None
        m.resigned = None
        m.overdue = None
        m.claimed = None
        return m

    @classmethod
    def around(
        cls,
        round_: Round,
        seals: tuple[int, int],
        results: tuple[RoundResult, ...],
        overdue: int | None = None,
    ) -> Match:
        """A running match around a round that was not dealt from a seed: a hidden world
        sampled from one seat's information (``Information.world``), for previews and
        searches, never for a log. A round it ends is scored as the rules score it; the
        deal after that comes from a seed of zeros, a stand-in that nothing may tell."""
        m = cls.__new__(cls)
        m.seed = bytes(rng.SEED_BYTES)
        m.first_player = round_.starter
        m.results = results
        m.rounds = ()  # the finished rounds' cards are not part of anyone's information
        m.ended_round = None
        m.seals = seals
        m.round = round_
        m.winner = None
        m.resigned = None
        m.overdue = overdue
        m.claimed = None
        return m

    # -------------------------------------------------------------- questions

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def status(self) -> Status:
        return Status.FINISHED if self.winner is not None else Status.IN_PROGRESS

    @property
    def to_move(self) -> int | None:
        return None if self.winner is not None else self.round.to_move

    @property
    def round_number(self) -> int:
        return self.round.number

    @property
    def shown_round(self) -> Round:
        """The round to draw after the last move: the one it ended, as it ended, if it
        ended one (not the next deal), else the round in progress."""
        return self.round if self.ended_round is None else self.ended_round

    @property
    def ended_result(self) -> RoundResult | None:
        """How the round the last move ended was scored, if it ended one."""
        return None if self.ended_round is None else self.results[-1]

    @property
    def termination(self) -> Termination | None:
        if self.winner is None:
            return None
        if self.resigned is not None:
            return Termination.RESIGNATION
        if self.claimed is not None:
            return Termination.CLAIM
        return Termination.SEALS

    def outcome(self) -> Outcome | None:
        """How the match ended, or None while it runs."""
        termination = self.termination
        if termination is None or self.winner is None:
            return None
        return Outcome(self.winner, self.seals, termination)

    def legal_moves(self) -> list[Move]:
        return [] if self.winner is not None else self.round.legal_moves()

    def is_legal(self, move: Move, seat: int | None = None) -> bool:
        try:
            self.check(move, seat)
        except IllegalMoveError:
            return False
        return True

    def check(self, move: Move, seat: int | None = None) -> None:
        """Raise ``IllegalMoveError`` with the reason if ``move`` is not legal now."""
        self.apply(move, seat)

    # ---------------------------------------------------------------- moves

    def apply(self, move: Move, seat: int | None = None) -> Match:
        """The match after ``move``; ``seat``, when given, must be the seat to move."""
        if self.winner is not None:
            raise IllegalMoveError("game_over")
        kind = type(move)
        if kind is Resign or kind is Timeout or kind is Claim:
            return self._match_action(kind, seat)
        new_round = self.round.apply(move, seat)
        m = self._copy()
        m.round = new_round
        m.overdue = None  # only the seat to move can be overdue, and it has now moved
        if new_round.end is not None:
            m._finish_round()
        return m

    def _copy(self) -> Match:
        m = Match.__new__(Match)
        m.seed = self.seed
        m.first_player = self.first_player
        m.results = self.results
        m.rounds = self.rounds
        m.ended_round = None
        m.seals = self.seals
        m.round = self.round
        m.winner = None
        m.resigned = None
        m.overdue = self.overdue
        m.claimed = None
        return m

    def _match_action(self, kind: type, seat: int | None) -> Match:
        """Resign (either seat, any time), a timeout (the seat to move), a claim (its opponent)."""
        if seat is None:
            raise IllegalMoveError("resign_needs_seat")
        m = self._copy()
        if kind is Resign:
            m.resigned, m.winner = seat, 1 - seat
        elif kind is Timeout:
            if seat != self.round.to_move:
                raise IllegalMoveError("timeout_not_to_move")
            if self.overdue is not None:
                raise IllegalMoveError("already_overdue")
            m.overdue = seat
        else:
            if self.overdue != 1 - seat:
                raise IllegalMoveError("claim_not_overdue")
            m.claimed, m.winner = seat, seat
        return m

    def _finish_round(self) -> None:
        ended = self.round
        result = ended.result()
        self.results = (*self.results, result)
        self.rounds = (*self.rounds, ended)
        self.ended_round = ended
        if result.seal is not None:
            seals = list(self.seals)
            seals[result.seal] += 1
            self.seals = (seals[0], seals[1])
            if seals[result.seal] >= SEALS_TO_WIN:
                self.winner = result.seal
                return
        self.round = Round.deal(self.seed, result.number + 1, result.next_starter())

    def play(self, moves: Iterable[Move]) -> Match:
        """Apply a sequence of moves (each by the seat to move)."""
        state = self
        for move in moves:
            state = state.apply(move)
        return state
