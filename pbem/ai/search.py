"""Information-set Monte Carlo tree search on the engine's moves.

Single-observer ISMCTS (Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree
Search", IEEE TCIAIG 2012): one tree whose nodes are the searching seat's information
sets, reached by move sequences; every iteration samples a hidden world consistent with
the seat's information (``Dealer.deal``), walks the tree using only the moves
legal in that world (UCB with *availability* counts, since a move of the opponent's
sampled hand is not available in every world), expands one move, plays the round out
with a cheap heuristic policy and backs the result up. Chance (the cards drawn into the
market) is part of the sampled world, so the tree's nodes merge different draws, as
SO-ISMCTS does.

Why written here rather than with OpenSpiel (``open_spiel`` on PyPI, which has ISMCTS):
it would need Jaipur written a second time as an OpenSpiel game (state, observer,
chance nodes), a rules implementation beside the engine that could drift from it, and a
large compiled dependency for the one algorithm we use; the search is a hundred lines
over ``Round.legal_moves``/``Round.apply``, which keep the engine the only rule book.

The horizon is the end of the current round: the next deal comes from the seed, which no
seat knows, and a round's seal is what the match is made of. The reward is mostly the
seal (1, ½ for a fully tied round, 0) with a little of the score margin, so that among
lines that win equally often the one that wins by more is preferred.

Progressive widening keeps the wide nodes (a market with goods and a hand of cards has
dozens of exchanges) from spreading the iterations thin: a node with ``n`` visits may
have ``2 + √n`` children, expanded best first by a cheap prior (``policies.prior``).
Below the root a node looks at its takes, camels and sales first and lists its exchanges
only once each of those has a child: most nodes are visited a few times, and listing
every exchange of each sampled opponent hand cost a quarter of the search.

Speed is strength here (the levels are iteration counts, and the computer is measured
against players given the same time): the worlds come from one ``Dealer`` per search,
and the rollouts run in place on an ``engine.Playout`` (docs/performance.md, "0.3.0"); a
player's search stops once no other move can overtake its choice (``ranked``'s
``decided``: the same move, about a quarter less time).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from pbem.engine.information import Dealer, Information
from pbem.engine.moves import Move
from pbem.engine.round import Round

from .policies import play_out, prior


class Node:
    __slots__ = ("avail", "children", "move", "player", "visits", "wide", "wins")

    def __init__(self, move: Move | None, player: int) -> None:
        self.move = move
        self.player = player  # the seat that made ``move``
        self.children: dict[Move, Node] = {}
        self.visits = 0
        self.avail = 0
        self.wins = 0.0
        self.wide = False  # its exchanges are among its moves (see ``ranked``)


def _reward(r: Round, seat: int) -> float:
    """The round's value to ``seat``: mostly its seal, a little the margin."""
    result = r.result()
    win = 0.5 if result.seal is None else float(result.seal == seat)
    margin = result.scores[seat] - result.scores[1 - seat]
    return 0.85 * win + 0.15 * min(1.0, max(0.0, 0.5 + margin / 40))


@dataclass(frozen=True, slots=True)
class MoveStat:
    """One move of the root as the search left it: how often it was tried, and the mean
    reward (the seat's) of the worlds it was tried in."""

    move: Move
    visits: int
    value: float


def search(
    info: Information, iterations: int, rnd: random.Random, exploration: float = 0.7
) -> Move:
    """The move the search likes best after ``iterations`` sampled worlds (it stops as soon
    as that move is certain: see ``ranked``'s ``decided``)."""
    return ranked(info, iterations, rnd, exploration, decided=True)[0].move


#: How often (in iterations) a ``decided`` search looks whether its move is settled.
_DECIDED_EVERY = 16


def ranked(
    info: Information,
    iterations: int,
    rnd: random.Random,
    exploration: float = 0.7,
    decided: bool = False,
) -> list[MoveStat]:
    """The root's moves the search tried, best first (most visits, then most reward): the
    one loop behind both ``choose`` and the analysis of a finished game.

    ``decided``: stop once the most visited move leads every other by more visits than
    iterations are left, so that none can overtake it. The first move is then the one the
    whole search would name, for less time (the rest of the table is cut short, so the
    analysis, which reads all of it, runs every iteration)."""
    root = Node(None, 1 - info.seat)
    dealer = Dealer(info)
    first = dealer.deal(rnd)
    root_moves = first.legal_moves()
    if len(root_moves) == 1:
        return [MoveStat(root_moves[0], 0, 0.0)]
    # the root's moves, and their prior, are the same in every world (own hand, herd,
    # market, piles): ranked once, expanded in that order
    root_order = sorted(root_moves, key=lambda m: -(prior(first, m) + rnd.random() * 0.01))
    log = math.log
    sqrt = math.sqrt
    for done in range(iterations):
        if decided and done % _DECIDED_EVERY == 0 and _settled(root, iterations - done):
            break
        state = dealer.deal(rnd)
        node = root
        path = [root]
        # selection and expansion
        while state.end is None:
            children = node.children
            allowed = 2 + int(sqrt(node.visits))
            if node is root:
                present = list(children.values())
                if len(present) < allowed and len(present) < len(root_order):
                    move = root_order[len(present)]
                else:
                    move = None
            else:
                # below the root the exchanges (most of a wide node's moves, and the most
                # costly to list) are opened only once every simpler move has a child
                legal = state.legal_moves() if node.wide else state.simple_moves()
                present = [c for m in legal if (c := children.get(m)) is not None]
                if not node.wide and len(present) == len(legal) < allowed:
                    node.wide = True
                    legal = state.legal_moves()
                move = None
                if len(present) < allowed and len(present) < len(legal):
                    untried = [m for m in legal if m not in children]
                    move = max(untried, key=lambda m: prior(state, m) + rnd.random() * 0.01)
            if move is not None:
                child = Node(move, state.to_move)
                children[move] = child
                for c in present:
                    c.avail += 1
                child.avail += 1
                state = state.apply(move)
                path.append(child)
                break
            best, best_value = None, -1.0
            for c in present:
                c.avail += 1
                value = c.wins / c.visits + exploration * sqrt(log(c.avail) / c.visits)
                if value > best_value:
                    best, best_value = c, value
            assert best is not None and best.move is not None  # only the root has no move
            node = best
            state = state.apply(best.move)
            path.append(node)
        state = play_out(state, rnd)
        reward = _reward(state, info.seat)
        for n in path:
            n.visits += 1
            n.wins += reward if n.player == info.seat else 1.0 - reward
    legal_root = set(root_moves)
    # sorted is stable and max takes the first of equals: ``reverse`` would not keep
    # that order, so negated keys keep ``choose``'s move what it was
    tried = sorted(
        (c for m, c in root.children.items() if m in legal_root),
        key=lambda c: (-c.visits, -c.wins),
    )
    return [
        MoveStat(c.move, c.visits, c.wins / c.visits if c.visits else 0.0)
        for c in tried
        if c.move is not None
    ]


def _settled(root: Node, left: int) -> bool:
    """Whether the root's most visited child leads the next by more than ``left`` visits (a
    child not yet made would start from none)."""
    first = second = 0
    for child in root.children.values():
        v = child.visits
        if v > first:
            first, second = v, first
        elif v > second:
            second = v
    return first - second > left
