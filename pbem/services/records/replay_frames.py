"""The replay viewer's frames: the board after each move, as one perspective may see it.

Built from a record's seed and moves alone, so the same code serves a stored game
and a record file (``pbem view``). What a perspective may see is the engine's
observer (``jaipur.observe``), the same function as the live game's: every frame and
every point of the chart is built from that perspective's view, so nothing it could
not see is ever rendered or sent. Here is decided only who may ask for which
perspective: while a game runs, a player's own seat; after the end (or for a record
file, which carries its seed), everything or either seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from babel.support import LazyProxy

from ... import engine as jaipur
from ...engine import Match, Viewer
from ...engine.explain import Account, narrate
from ...engine.record import LoggedMove
from ...i18n import lazy_gettext as _l
from ...i18n.words import error_text
from ..core.errors import Missing, NotAllowed
from ..core.integrity import chain_prefix, flag, replay_break

ALL = Viewer.ALL.value


@dataclass(frozen=True, slots=True)
class Step:
    """One logged entry, as the move list shows it."""

    n: int
    seat: int
    name: str
    move: str
    words: Account
    at: datetime | str | None
    source: str | None
    message: str | None
    round: int
    ends_round: bool


@dataclass(frozen=True, slots=True)
class Frame:
    n: int
    perspective: str  # "all", "0" or "1"
    step: Step | None  # the move that led here (None at the start)
    round_number: int
    view: jaipur.SeatView | None  # for a seat's perspective
    public: jaipur.PublicView  # what anyone sees (scores of goods tokens, counts…)
    full: jaipur.FullView | None  # everything, "all" only (the engine allows it after the end)
    round_ended: jaipur.RoundResult | None
    seals: tuple[int, int]
    game_over: bool
    winner: int | None
    #: The fresh deal of the next round, after move ``n`` ended one (round 1's deal is n=0).
    deal: bool = False


@dataclass(frozen=True, slots=True)
class ChartRound:
    number: int
    points: tuple[tuple[int, int, int], ...]  # (n, rupees of seat 0, rupees of seat 1)
    partial: tuple[bool, bool]  # a seat's bonus values hidden from this perspective


@dataclass
class Replay:
    names: tuple[str, str]
    seed: bytes
    first_player: int | None
    moves: list[LoggedMove]
    extras: list[dict[str, Any]] = field(default_factory=list)  # at, source, message per move
    finished: bool = False
    states: list[Match] = field(default_factory=list)
    #: Every perspective at every step: a record file carries its seed, so nothing is hidden.
    public: bool = False
    #: Why the moves after these are not shown (a stored log that stops verifying there).
    broken: str | None = None

    def __post_init__(self) -> None:
        self.states = list(jaipur.replay_states(self.seed, self.moves, self.first_player))
        self.finished = self.states[-1].is_over

    @property
    def last(self) -> int:
        return len(self.moves)

    def perspectives(self, viewer_seat: int | None) -> list[str]:
        """What this viewer may choose: a running game shows only the viewer's own seat."""
        if self.finished or self.public:
            return [ALL, "0", "1"]
        if viewer_seat is None:
            return []
        return [str(viewer_seat)]

    def check(self, perspective: str, viewer_seat: int | None) -> None:
        allowed = self.perspectives(viewer_seat)
        if not allowed:
            raise NotAllowed(
                _l(
                    "The replay of a running game is open only to its players, "
                    "through their own link."
                )
            )
        if perspective not in allowed:
            raise NotAllowed(_l("While the game runs you can see only your own side of it."))

    @cached_property
    def all_steps(self) -> list[Step]:
        return self.steps()

    def steps(self) -> list[Step]:
        out = []
        for i, entry in enumerate(self.moves):
            before, after = self.states[i], self.states[i + 1]
            move = jaipur.parse_move(entry.move)
            seat = entry.seat if entry.seat is not None else before.to_move
            assert seat is not None  # a move is logged only while a seat is to move
            extra = self.extras[i] if i < len(self.extras) else {}
            out.append(
                Step(
                    n=entry.n,
                    seat=seat,
                    name=self.names[seat],
                    move=entry.move,
                    words=narrate(before, move, seat, self.names[seat]),
                    at=extra.get("at", entry.at),
                    source=extra.get("source"),
                    message=extra.get("message"),
                    round=before.round.number,
                    ends_round=after.ended_round is not None,
                )
            )
        return out

    @cached_property
    def deals(self) -> frozenset[int]:
        """The moves after which a fresh round is dealt: each ended a round, not the match.

        The frame of such a move still shows its round as it ended; the deal has a frame of
        its own (``frame(n, …, deal=True)``), between it and the next round's first move.
        """
        return frozenset(
            n
            for n in range(1, len(self.states))
            if self.states[n].ended_round is not None and not self.states[n].is_over
        )

    def positions(self) -> list[tuple[int, bool]]:
        """Every frame in order, as ``(n, deal)``: round 1's deal, each move, each fresh deal."""
        out = [(0, False)]
        for n in range(1, self.last + 1):
            out.append((n, False))
            if n in self.deals:
                out.append((n, True))
        return out

    def round_starts(self) -> dict[int, tuple[int, bool]]:
        """The frame of each round's deal, as ``(n, deal)``: step 0 for round 1, the deal
        after the move that ended the round before for later ones."""
        starts = {1: (0, False)}
        for n in sorted(self.deals):
            starts[self.states[n].round.number] = (n, True)
        return starts

    def frame(
        self, n: int, perspective: str, viewer_seat: int | None = None, *, deal: bool = False
    ) -> Frame:
        self.check(perspective, viewer_seat)
        if not 0 <= n <= self.last:
            raise Missing(_l("This game has moves 0 to %(last)s.", last=self.last))
        if deal and n not in self.deals:
            raise Missing(_l("There is no such step."))
        state = self.states[n]
        step = self.all_steps[n - 1] if n and not deal else None
        seen = self._observe(state, Viewer(perspective), deal=deal)
        public = self._observe(state, Viewer.PUBLIC, deal=deal).view
        assert isinstance(public, jaipur.PublicView)
        view, full = seen.view, seen.view
        return Frame(
            n=n,
            perspective=perspective,
            step=step,
            round_number=state.round.number if deal else state.shown_round.number,
            view=view if isinstance(view, jaipur.SeatView) else None,
            public=public,
            full=full if isinstance(full, jaipur.FullView) else None,
            round_ended=seen.round_ended,
            seals=state.seals,
            game_over=state.is_over,
            winner=state.winner,
            deal=deal,
        )

    def _observe(self, state: Match, viewer: Viewer, deal: bool = False) -> jaipur.Observation:
        """A step as ``viewer`` sees it: the round a move ended is drawn as it ended, and
        with ``deal`` the fresh deal that follows it."""
        published = self.finished or self.public
        return jaipur.observe(state, viewer, seed_published=published, step=not deal)

    def chart(self, perspective: str) -> list[ChartRound]:
        """Rupees over time in each round; the opponent's bonus values count only when known.

        A round's last point, once it is scored, is its score (camel token included), the
        total the round's end tells: a page never shows two totals for one round."""
        viewer = Viewer(perspective)
        rounds: dict[int, list[tuple[int, int, int]]] = {}
        partial: dict[int, tuple[bool, bool]] = {}
        for n, state in enumerate(self.states):
            seen = self._observe(state, viewer)
            number = seen.view.table.round
            if seen.round_ended is not None:  # scored: everything counted is open
                a, b = seen.round_ended.scores
                rounds.setdefault(number, []).append((n, a, b))
                partial[number] = (False, False)
                continue
            first, second = seen.player(0), seen.player(1)
            rounds.setdefault(number, []).append((n, first.known_rupees, second.known_rupees))
            partial[number] = (not first.bonus_known, not second.bonus_known)
        return [ChartRound(k, tuple(v), partial[k]) for k, v in sorted(rounds.items())]


# ------------------------------------------------------------ where replays come from


def from_record(record: jaipur.Record) -> Replay:
    """A replay of a record file; it needs the seed, so only a finished game's record
    (or an evidence file after the end). Moves that do not replay end it: ``broken``."""
    seed = record.seed_bytes
    if seed is None:
        raise NotAllowed(
            _l(
                "This record has no seed: it is a player's view of a running game, "
                "which cannot be replayed. Records of finished games can."
            )
        )
    names = ["seat 0", "seat 1"]
    for p in record.players:
        if p.get("seat") in (0, 1) and p.get("name"):
            names[p["seat"]] = str(p["name"])

    def replay(moves: list[LoggedMove]) -> Replay:
        extras = [{"at": m.at} for m in moves]
        return Replay((names[0], names[1]), seed, record.first_player, moves, extras, public=True)

    moves = list(record.moves)
    try:
        return replay(moves)
    except jaipur.ReplayError as exc:
        shown = _playable(seed, moves, record.first_player)
        truncated = replay(moves[:shown])
        truncated.broken = replay_break(exc)
        return truncated


def _playable(seed: bytes, moves: list[LoggedMove], first_player: int | None) -> int:
    """How many of ``moves``, from the first, replay."""
    states = jaipur.replay_states(seed, moves, first_player)
    next(states)  # the deal
    count = 0
    try:
        for _state in states:
            count += 1
    except jaipur.ReplayError:
        pass
    return count


def from_game(game: Any, rows: list[Any], *, notes: bool = False) -> Replay:
    """A replay of a stored game (the seed stays on the server; frames show only views).

    ``notes``: the players' notes to each other come with the moves, for a replay opened
    through a seat's link only; a public replay never shows them.

    Only as far as the log verifies: at the first row that does not chain or replay the
    replay ends, ``broken`` says why, and the game is flagged (``integrity``).
    """
    from ..core.errors import NotStarted
    from ..core.lookup import logged_moves
    from ..core.replayed import seat_names, start

    if not game.dealt:
        raise NotStarted()
    names = seat_names(game)

    def replay(kept: list[Any]) -> Replay:
        return Replay(
            names,
            bytes.fromhex(game.seed),
            game.first_player,
            logged_moves(kept),
            [
                {"at": r.at, "source": r.source, "message": r.message if notes else None}
                for r in kept
            ],
        )

    shown, broken = chain_prefix(start(game, names).last_hash, rows)
    try:
        result = replay(rows[:shown])
    except jaipur.ReplayError as exc:  # numbered as it should be: the chain holds so far
        broken = replay_break(exc)
        result = replay(rows[: exc.n - 1])
    if broken is not None:
        result.broken = broken
        flag(game, broken)
    return result


@dataclass(frozen=True, slots=True)
class Branch:
    """What if other moves had been played from step ``n``, against the real deck."""

    n: int
    tried: tuple[str, ...]  # canonical texts of the moves tried, in order
    words: tuple[Account, ...]
    state: Match  # the position after the tried moves
    real: Match  # the position the real game reached as many moves later
    real_steps: tuple[Step, ...]  # what was really played instead
    error: Any  # why the next tried move was refused, if one was (lazy: in the reader's words)
    legal: tuple[str, ...]  # what the player to move could play now in the branch


def explore(replay: Replay, n: int, tries: list[str]) -> Branch:
    """Play ``tries`` from step ``n`` of a finished game; nothing of it is stored anywhere."""
    if not (replay.finished or replay.public):
        raise NotAllowed(_l("The what-if explorer opens when the game is over."))
    if not 0 <= n <= replay.last:
        raise Missing(_l("This game has moves 0 to %(last)s.", last=replay.last))
    state = replay.states[n]
    tried: list[str] = []
    words: list[Account] = []
    error: Any = None
    for text in tries[:200]:
        try:
            move = jaipur.parse_move(text)
            if isinstance(move, jaipur.MATCH_ACTIONS):
                raise jaipur.InvalidMoveError("unknown_verb", word=text)
            seat = state.to_move
            if seat is None:
                raise jaipur.IllegalMoveError("game_over")
            after = state.apply(move, seat)
        except jaipur.MoveError as exc:
            error = LazyProxy(lambda t, e: f"{t!r}: {error_text(e)}", text, exc, enable_cache=False)
            break
        words.append(narrate(state, move, seat, replay.names[seat]))
        tried.append(str(move))
        state = after
    k = min(n + len(tried), replay.last)
    legal = tuple(str(m) for m in state.legal_moves())
    return Branch(
        n,
        tuple(tried),
        tuple(words),
        state,
        replay.states[k],
        tuple(replay.all_steps[n:k]),
        error,
        legal,
    )
