"""The full position as JSON (docs/record-format.md §5) and its digest (§4 and §6 ``position``).

This is the engine's ``fen()``: an omniscient snapshot, used by ``pbem replay
--json`` and digested into every logged move so that a replay that drifts from
what was played is caught and named.

``verify`` digests every position of a record, so the canonical text is built
directly from the round's tuples (``canonical_position``) rather than through
``json.dumps`` of ``position_json``: the same bytes, several times faster. A
property test holds the two equal.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from .cards import BONUS_SIZES, CARDS, GOODS, GOODS_TOKENS
from .match import Match


def position_json(match: Match) -> dict[str, Any]:
    r = match.round
    return {
        "round": r.number,
        "to_move": match.to_move,
        "round_over": r.is_over,
        "hands": [[c.word for c in r.hand(seat)] for seat in (0, 1)],
        "herds": list(r.herds),
        "market": [c.word for c in r.market_cards()],
        "deck": [c.word for c in r.deck_cards()],
        "discard": [c.word for c in r.discard_cards()],
        "tokens": {g.word: list(r.tokens_left(g)) for g in GOODS},
        "bonus": {str(size): list(r.bonus_left(size)) for size in BONUS_SIZES},
        "goods_tokens": [list(r.goods_won[seat]) for seat in (0, 1)],
        "bonus_tokens": [list(r.bonus_won[seat]) for seat in (0, 1)],
        "seals": list(match.seals),
    }


def canonical_json(data: Any) -> str:
    """``json.dumps(data, sort_keys=True, separators=(",", ":"))``: the form digests cover."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


# --------------------------------------------------------- the fast canonical text

_QUOTED = tuple(f'"{c.word}"' for c in CARDS)
#: ``_RUNS[card][k]``: ``k`` copies of the card's quoted word, comma-joined.
_RUNS = tuple(tuple(",".join([_QUOTED[c]] * k) for k in range(56)) for c in range(len(CARDS)))
#: Goods in the order their names sort (the ``tokens`` object's key order).
_GOODS_BY_NAME = sorted(GOODS, key=lambda g: g.word)
#: ``_TOKENS_LEFT[good][taken]``: the pile's ``"word":[…]`` member once ``taken`` are gone.
_TOKENS_LEFT = {
    g: tuple(
        f'"{g.word}":[{",".join(map(str, GOODS_TOKENS[g][taken:]))}]'
        for taken in range(len(GOODS_TOKENS[g]) + 1)
    )
    for g in GOODS
}
_NULL_OR_SEAT = ("0", "1")
assert BONUS_SIZES == (3, 4, 5), "canonical_position writes the bonus piles in this order"


#: Texts of tuples already written (hands, piles and won tokens repeat across positions).
_MEMO: dict[tuple[str, tuple[int, ...]], str] = {}
_MEMO_LIMIT = 100_000


def _remember(key: tuple[str, tuple[int, ...]], text: str) -> str:
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[key] = text
    return text


def _cards(counts: tuple[int, ...]) -> str:
    """Counts per card as the quoted words, one per card, in canonical order."""
    key = ("c", counts)
    text = _MEMO.get(key)
    if text is None:
        runs = _RUNS
        text = _remember(key, ",".join([runs[c][k] for c, k in enumerate(counts) if k]))
    return text


def _ints(values: tuple[int, ...]) -> str:
    key = ("i", values)
    text = _MEMO.get(key)
    if text is None:
        text = _remember(key, ",".join(map(str, values)))
    return text


def canonical_position(match: Match) -> str:
    """``canonical_json(position_json(match))``, built straight from the tuples."""
    r = match.round
    piles, taken = r.bonus, r.bonus_taken
    bonus = (
        f'"3":[{_ints(piles[0][taken[0] :])}],"4":[{_ints(piles[1][taken[1] :])}],'
        f'"5":[{_ints(piles[2][taken[2] :])}]'
    )
    tokens = ",".join([_TOKENS_LEFT[g][r.tokens_taken[g]] for g in _GOODS_BY_NAME])
    to_move = match.to_move
    h0, h1 = r.hands
    return (
        f'{{"bonus":{{{bonus}}},'
        f'"bonus_tokens":[[{_ints(r.bonus_won[0])}],[{_ints(r.bonus_won[1])}]],'
        f'"deck":[{",".join([_QUOTED[c] for c in r.deck[r.top :]])}],'
        f'"discard":[{_cards(r.discard)}],'
        f'"goods_tokens":[[{_ints(r.goods_won[0])}],[{_ints(r.goods_won[1])}]],'
        f'"hands":[[{_cards(h0)}],[{_cards(h1)}]],'
        f'"herds":[{r.herds[0]},{r.herds[1]}],'
        f'"market":[{_cards(r.market)}],'
        f'"round":{r.number},'
        f'"round_over":{"true" if r.end is not None else "false"},'
        f'"seals":[{match.seals[0]},{match.seals[1]}],'
        f'"to_move":{"null" if to_move is None else _NULL_OR_SEAT[to_move]},'
        f'"tokens":{{{tokens}}}}}'
    )


def position_hash(match: Match) -> str:
    """Version 1's digest: SHA-256 of the canonical JSON (readable by brute force while the
    game runs, so only shown once the seed is published)."""
    return hashlib.sha256(canonical_position(match).encode()).hexdigest()


def position_digest(seed: bytes, match: Match) -> str:
    """Version 2's digest: HMAC-SHA256 keyed with the seed, so it tells nothing until the
    seed is published, and then anyone can recompute it."""
    return hmac.new(seed, canonical_position(match).encode(), hashlib.sha256).hexdigest()
