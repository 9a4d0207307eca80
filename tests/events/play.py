"""Whole events played with random legal moves, pure: the records a server would write."""

from __future__ import annotations

import random
from dataclasses import dataclass

from pbem.engine import Match, Record, build_record, chain_start, log_move, position_digester, rng
from pbem.events import (
    Entrant,
    EventRecord,
    EventRules,
    GameResult,
    Pairing,
    commit,
    from_match,
    pair_round,
    round_count,
    round_finished,
    standings,
    tie_breaks,
)

CREATED_AT = "2026-12-02T09:00:00Z"
EVENT_SEED = bytes(range(32))


def play_game(pairing: Pairing, choice_seed: int) -> Record:
    """A finished event game: ``first`` at seat 0, moving first."""
    rnd = random.Random(choice_seed)
    seed = rng.Stream(choice_seed.to_bytes(8, "big") * 4, "game").read(32)
    commitment = rng.commitment(seed)
    game_id = f"g-{pairing.round}-{pairing.board}-{pairing.game}-{choice_seed}"
    start = chain_start(
        "jaipur-record/2", commitment, game_id=game_id, created_at=CREATED_AT, first_player=0
    )
    digest = position_digester("jaipur-record/2", seed)
    state, log, previous = Match.new(seed, 0), [], start
    while not state.is_over:
        seat, move = state.to_move, rnd.choice(state.legal_moves())
        state = state.apply(move)
        at = f"2026-12-0{3 + len(log) // 3600}T{len(log) // 60 % 24:02d}:{len(log) % 60:02d}:00Z"
        entry = log_move(previous, len(log) + 1, seat, move, at, state, digest)
        log.append(entry)
        previous = entry.hash
    return build_record(
        seed=seed,
        commitment=commitment,
        moves=log,
        final=state,
        game_id=game_id,
        players=[{"seat": 0, "name": pairing.first}, {"seat": 1, "name": pairing.second}],
        created_at=CREATED_AT,
        first_player=0,
    )


@dataclass
class Played:
    record: EventRecord
    games: list[Record]


def run_event(
    rules: EventRules,
    entrants: list[Entrant],
    *,
    seed: bytes = EVENT_SEED,
    choice_seed: int = 1,
    no_winner: set[tuple[int, int, int]] = frozenset(),  # type: ignore[assignment]
    forfeits: dict[tuple[int, int, int], str] | None = None,
    rounds: int | None = None,
) -> Played:
    """Pair and play every round (``rounds`` of them: all by default). Games keyed in
    ``no_winner`` end with no winner (both absent); in ``forfeits`` they are lost by the
    named entrant unplayed; a withdrawn entrant's later round-robin games are forfeits."""
    forfeits = forfeits or {}
    pairings: list[Pairing] = []
    results: list[GameResult] = []
    games: list[Record] = []
    out = {e.id: e.withdrew_after for e in entrants}
    total = round_count(rules, len(entrants)) if rounds is None else rounds
    n = choice_seed * 1000
    for round_no in range(1, total + 1):
        todo = pair_round(rules, entrants, results, round_no, seed, pairings)
        while todo:
            pairings += todo
            for p in todo:
                if p.second is None:
                    continue
                key = (p.round, p.board, p.game)
                loser = forfeits.get(key)
                for who in (p.first, p.second):
                    after = out[who]
                    if after is not None and round_no > after:
                        loser = who
                if loser is not None:
                    winner = p.second if loser == p.first else p.first
                    results.append(
                        GameResult(p.round, p.board, None, None, winner, forfeit=True, game=p.game)
                    )
                    continue
                if key in no_winner:
                    results.append(GameResult(p.round, p.board, None, None, None, game=p.game))
                    continue
                n += 1
                game = play_game(p, n)
                games.append(game)
                final = game.moves[-1].hash
                from pbem.engine import replay

                results.append(from_match(p, game.game_id, final, replay(game)))
            todo = tie_breaks(rules, [p for p in pairings if p.round == round_no], results)
        assert round_finished(rules, [p for p in pairings if p.round == round_no], results)
    table = standings(rules, entrants, pairings, results, seed)
    record = EventRecord(
        event_id="ev1",
        name="Winter cup, 2026: «round» 1",
        rules=rules,
        created_at=CREATED_AT,
        commitment=commit(seed),
        seed=seed.hex(),
        entrants=tuple(entrants),
        pairings=tuple(pairings),
        results=tuple(results),
        standings=tuple(table),
    )
    return Played(record, games)


def people(n: int, withdrawn: dict[int, int] | None = None) -> list[Entrant]:
    withdrawn = withdrawn or {}
    return [
        Entrant(f"p{i}", f"Player {i}", 1500 + 7 * i, withdrew_after=withdrawn.get(i))
        for i in range(n)
    ]
