"""Each round's pairings, from the seed and the results so far (docs/record-format.md §10.4).

Every choice the organiser does not make is a function of the event's seed, the
entrants and the results of earlier rounds, so ``pbem verify`` recomputes it:

- round robin: the Berger tables, the players numbered in an order drawn from the seed;
  a double round robin plays them again with the first player swapped;
- Swiss: a maximum-weight matching (``networkx.max_weight_matching``) whose weights
  put, in this order, fewest rematches, then players of equal scores together (the bye
  to the lowest-scored player who has not had one), then colours; among equally good
  matchings, the order drawn from the seed that the graph is built in decides;
- elimination: a standard bracket seeded by rating (1 v N, …), byes to the top seeds,
  and a tie-break game, colours swapped, after a game with no winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import commitment
from .entrants import Entrant
from .formats import EventRules, Format, round_count
from .history import Past, history, key_of, results_by_key
from .results import GameResult

_BYE = "\x00bye"  # not a valid entrant id: the bye's vertex in the Swiss graph


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game of a round: ``first`` takes seat 0 and moves first (the game's
    ``first_player`` is 0), ``second`` seat 1; ``second`` None is a bye (no game, one
    match point). ``game`` counts an elimination board's games: 2, 3, … are tie-breaks."""

    round: int
    board: int
    first: str
    second: str | None
    game: int = 1

    @property
    def is_bye(self) -> bool:
        return self.second is None


def pair_round(
    rules: EventRules,
    entrants: Sequence[Entrant],
    results: Sequence[GameResult],
    round_no: int,
    seed: bytes,
    pairings: Sequence[Pairing] = (),
) -> list[Pairing]:
    """The pairings of round ``round_no`` (1-based), boards numbered from 1, byes last
    (in elimination a board is its place in the bracket).

    ``results`` and ``pairings`` are those of the earlier rounds (elimination and Swiss
    read them; a round robin's schedule is fixed from round 1). Deterministic: the same
    arguments give the same list, on any machine. ``ValueError`` for a round the
    event does not have, or an elimination round whose previous round is not decided.
    """
    ids = [e.id for e in entrants]
    if len(set(ids)) != len(ids):
        raise ValueError("two entrants have the same id")
    total = rounds_of(rules, entrants)
    if not 1 <= round_no <= total:
        raise ValueError(f"the event has rounds 1 to {total}, not {round_no}")
    earlier = [p for p in pairings if p.round < round_no]
    done = [r for r in results if r.round < round_no]
    if rules.format in ROUND_ROBINS:
        return _round_robin(ids, round_no, seed)
    if rules.format is Format.SWISS:
        return _swiss(entrants, earlier, done, round_no, seed)
    return _elimination(entrants, earlier, done, round_no, seed)


ROUND_ROBINS = (Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN)


def rounds_of(rules: EventRules, entrants: Sequence[Entrant]) -> int:
    """How many rounds the event plays: a round robin's schedule counts every entrant,
    Swiss and elimination those who did not withdraw before round 1."""
    counted = len(entrants) if rules.format in ROUND_ROBINS else len(_starters(entrants))
    return round_count(rules, counted)


def _starters(entrants: Sequence[Entrant]) -> list[Entrant]:
    """Those who did not withdraw before the first round (Swiss and elimination)."""
    return [e for e in entrants if e.active_in(1)]


# ---------------------------------------------------------------- round robin


def berger_round(players: int, round_no: int) -> list[tuple[int, int]]:
    """Round ``round_no`` of the Berger table for an even number of ``players``: pairs of
    numbers (first, second), board 1 first, as FIDE's tables print them.

    Odd rounds start with ``a - N`` where ``a = (r + 1) / 2``; even rounds with ``N - a``
    where ``a = r / 2 + N / 2``; board k + 1 pairs ``a + k`` with ``a - k`` (numbers
    1 … N - 1 taken round in a circle)."""
    n = players
    if n < 2 or n % 2:
        raise ValueError("a Berger table has an even number of players")
    if not 1 <= round_no <= n - 1:
        raise ValueError(f"a Berger table of {n} has rounds 1 to {n - 1}")

    def wrap(x: int) -> int:
        return (x - 1) % (n - 1) + 1

    if round_no % 2:
        a = (round_no + 1) // 2
        out = [(a, n)]
    else:
        a = round_no // 2 + n // 2
        out = [(n, a)]
    out += [(wrap(a + k), wrap(a - k)) for k in range(1, n // 2)]
    return out


def numbering(ids: Sequence[str], seed: bytes) -> list[str]:
    """The round robin's numbering: the ids (sorted) shuffled by ``numbering/0``; the
    entrant at place i has number i + 1."""
    return commitment.shuffled(seed, sorted(ids), "numbering", 0)


def _round_robin(ids: Sequence[str], round_no: int, seed: bytes) -> list[Pairing]:
    numbered: list[str | None] = list(numbering(ids, seed))
    if len(numbered) % 2:
        numbered.append(None)  # number N: whoever meets it has the bye
    once = len(numbered) - 1
    swap = round_no > once
    table = berger_round(len(numbered), round_no - once if swap else round_no)
    games: list[tuple[str, str | None]] = []
    byes: list[tuple[str, str | None]] = []
    for a, b in table:
        first, second = numbered[a - 1], numbered[b - 1]
        if swap:
            first, second = second, first
        if first is None or second is None:
            byes.append((first or second or "", None))
        else:
            games.append((first, second))
    return [
        Pairing(round_no, board, first, second)
        for board, (first, second) in enumerate(games + byes, start=1)
    ]


# ---------------------------------------------------------------- Swiss


def _wish(past: Past) -> int:
    """-1: should move first, +1: should move second, 0: either (colour balance, then
    alternation with the last game)."""
    balance = sum(1 if c else -1 for c in past.colours)
    if balance:
        return -1 if balance < 0 else 1
    if past.colours:
        return 1 if past.colours[-1] else -1
    return 0


def _colour_cost(a: Past, b: Past) -> int:
    """0 when both can have the colour they should, 1 when one cannot, 2 when one cannot
    and both are already unbalanced."""
    wa, wb = _wish(a), _wish(b)
    if wa == 0 or wa != wb:
        return 0
    unbalanced = all(abs(sum(1 if c else -1 for c in p.colours)) >= 1 for p in (a, b))
    return 2 if unbalanced else 1


def _must(past: Past) -> bool:
    """Whether a player's wish is absolute (as FIDE's): they moved first two more times
    than second (or second two more than first), or the same way in their last two games."""
    balance = sum(1 if c else -1 for c in past.colours)
    return abs(balance) >= 2 or (len(past.colours) >= 2 and past.colours[-1] == past.colours[-2])


def _clash(a: Past, b: Past) -> bool:
    """Both must move first, or both must move second: one of them would go a third time."""
    return _must(a) and _must(b) and _wish(a) == _wish(b) != 0


def _first_of(a: str, b: str, past: dict[str, Past], coin: int) -> tuple[str, str]:
    """Who moves first: the one that should (colour balance, then alternation), else the
    one with fewer firsts, else the seed's coin."""
    wa, wb = _wish(past[a]), _wish(past[b])
    if wa != wb:
        return (a, b) if wa < wb else (b, a)
    fa, fb = sum(past[a].colours), sum(past[b].colours)
    if fa != fb:
        return (a, b) if fa < fb else (b, a)
    return (a, b) if coin == 0 else (b, a)


def swiss_weights(
    order: Sequence[str], past: dict[str, Past], round_no: int
) -> list[tuple[str, str, int]]:
    """The weighted edges of the Swiss graph, every pair of ``order`` (and the bye's
    vertex, last, when the count is odd), in order.

    A weight packs four numbers, each worth more than any sum of those after it over a
    whole matching: fewest earlier meetings (a bye counts as meeting the bye), no two
    players whose colour wishes are absolute and the same (``_clash``), closest scores
    (the square of the difference; for the bye, to the lowest score), colours
    (``_colour_cost``). Among matchings of equal weight the seeded order of the vertices
    decides (``swiss-order/<round>``), through the order the graph is built in.

    (Seeded random bits in each weight would make the best matching unique whatever the
    algorithm, but they slow the blossom algorithm tenfold: 200 players took 7 s.)"""
    nodes = list(order) + ([_BYE] if len(order) % 2 else [])
    pairs = len(nodes) // 2
    lowest = min((past[i].points for i in order), default=0)
    top_meet = round_no  # no pair has met round_no times before round_no
    top_diff = round_no * round_no
    shift_c = 0
    shift_b = shift_c + (2 * pairs).bit_length() + 1
    shift_m = shift_b + (top_diff * pairs).bit_length() + 1
    shift_a = shift_m + pairs.bit_length() + 1
    edges = []
    for i, x in enumerate(nodes):
        for y in nodes[i + 1 :]:
            if y == _BYE:
                met = past[x].byes
                diff = past[x].points - lowest
                colour, clash = 0, False
            else:
                met = past[x].met.get(y, 0)
                diff = past[x].points - past[y].points
                colour, clash = _colour_cost(past[x], past[y]), _clash(past[x], past[y])
            weight = (
                (top_meet - min(met, top_meet)) << shift_a
                | (0 if clash else 1) << shift_m
                | (top_diff - min(diff * diff, top_diff)) << shift_b
                | (2 - colour) << shift_c
            )
            edges.append((x, y, weight))
    return edges


def _swiss(
    entrants: Sequence[Entrant],
    pairings: Sequence[Pairing],
    results: Sequence[GameResult],
    round_no: int,
    seed: bytes,
) -> list[Pairing]:
    import networkx as nx  # here: checking a game record needs no graph library loaded

    active = [e.id for e in entrants if e.active_in(round_no)]
    past = history([e.id for e in entrants], pairings, results)
    order = commitment.shuffled(seed, sorted(active), "swiss-order", round_no)
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(order)
    graph.add_weighted_edges_from(swiss_weights(order, past, round_no))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    place = {x: i for i, x in enumerate(order)}
    games: list[tuple[str, str]] = []
    bye: str | None = None
    for x, y in matching:
        if _BYE in (x, y):
            bye = y if x == _BYE else x
        else:
            games.append((x, y) if place[x] < place[y] else (y, x))

    def board_key(pair: tuple[str, str]) -> tuple[int, int, int]:
        a, b = (past[x].points for x in pair)
        return (-max(a, b), -min(a, b), min(place[x] for x in pair))

    games.sort(key=board_key)
    coins = commitment.stream(seed, "colours", round_no)
    out = [
        Pairing(round_no, board, *_first_of(a, b, past, coins.below(2)))
        for board, (a, b) in enumerate(games, start=1)
    ]
    if bye is not None:
        out.append(Pairing(round_no, len(out) + 1, bye, None))
    return out


# ---------------------------------------------------------------- elimination


def bracket_order(size: int) -> list[int]:
    """Seed numbers in bracket order for a bracket of ``size`` (a power of two): board k
    pairs places 2k - 1 and 2k, so 1 meets ``size``, and 1 and 2 can meet only in the
    final (``[1, 4, 2, 3]`` for 4, ``[1, 8, 4, 5, 2, 7, 3, 6]`` for 8)."""
    order = [1]
    while len(order) < size:
        span = 2 * len(order) + 1
        order = [x for s in order for x in (s, span - s)]
    return order


def seeding(entrants: Sequence[Entrant], seed: bytes) -> list[str]:
    """The bracket's seeds, best first: by rating (none below every rating), equal
    ratings in the order of the lot ``seeding/0``."""
    lot = {
        x: i
        for i, x in enumerate(
            commitment.shuffled(seed, sorted(e.id for e in entrants), "seeding", 0)
        )
    }
    ranked = sorted(entrants, key=lambda e: (e.rating is None, -(e.rating or 0.0), lot[e.id]))
    return [e.id for e in ranked]


def board_winner(
    board_pairings: Sequence[Pairing], found: dict[tuple[int, int, int], GameResult]
) -> tuple[bool, str | None]:
    """(decided, winner) for one elimination board: a bye's player, or the winner of its
    last game; a game with no winner that was not forfeited is not decided (a tie-break
    game follows); one forfeited with no winner is decided with nobody going on."""
    last = max(board_pairings, key=lambda p: p.game)
    if last.second is None:
        return True, last.first
    result = found.get(key_of(last))
    if result is None:
        return False, None
    if result.winner is not None:
        return True, result.winner
    return result.forfeit, None


def _elimination(
    entrants: Sequence[Entrant],
    pairings: Sequence[Pairing],
    results: Sequence[GameResult],
    round_no: int,
    seed: bytes,
) -> list[Pairing]:
    playing = _starters(entrants)
    active = {e.id for e in entrants if e.active_in(round_no)}
    size = 1 << (len(playing) - 1).bit_length()
    if round_no == 1:
        seeds = seeding(playing, seed)
        slots: list[str | None] = [
            seeds[s - 1] if s <= len(seeds) else None for s in bracket_order(size)
        ]
    else:
        found = results_by_key(results)
        previous: dict[int, list[Pairing]] = {}
        for p in pairings:
            if p.round == round_no - 1:
                previous.setdefault(p.board, []).append(p)
        slots = []
        for board in range(1, (size >> (round_no - 2)) // 2 + 1):
            if board not in previous:
                slots.append(None)
                continue
            decided, winner = board_winner(previous[board], found)
            if not decided:
                raise ValueError(f"round {round_no - 1}, board {board} is not decided yet")
            slots.append(winner)
    coins = commitment.stream(seed, "colours", round_no)
    out = []
    for board in range(1, len(slots) // 2 + 1):
        a, b = slots[2 * board - 2], slots[2 * board - 1]
        coin = coins.below(2)
        a, b = (a if a in active else None), (b if b in active else None)
        if a is None or b is None:
            if a is not None or b is not None:
                out.append(Pairing(round_no, board, a or b or "", None))
            continue
        out.append(Pairing(round_no, board, *((a, b) if coin == 0 else (b, a))))
    return out


def tie_breaks(
    rules: EventRules, round_pairings: Sequence[Pairing], results: Sequence[GameResult]
) -> list[Pairing]:
    """The tie-break games a round still needs: in elimination, one for each board whose
    last game ended with no winner (colours swapped, ``game`` + 1); none in other formats."""
    if rules.format is not Format.ELIMINATION:
        return []
    found = results_by_key(results)
    boards: dict[int, list[Pairing]] = {}
    for p in round_pairings:
        boards.setdefault(p.board, []).append(p)
    out = []
    for board in sorted(boards):
        last = max(boards[board], key=lambda p: p.game)
        result = found.get(key_of(last))
        if last.second is None or result is None or result.winner or result.forfeit:
            continue
        out.append(Pairing(last.round, board, last.second, last.first, last.game + 1))
    return out


def round_finished(
    rules: EventRules, round_pairings: Sequence[Pairing], results: Sequence[GameResult]
) -> bool:
    """Whether every game of the round has a result and no tie-break game is needed."""
    found = results_by_key(results)
    every = all(p.second is None or key_of(p) in found for p in round_pairings)
    return every and not tie_breaks(rules, round_pairings, results)
