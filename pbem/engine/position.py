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


#: Hands, markets and discards as text, by their counts (a few thousand recur).
_CARDS: dict[tuple[int, ...], str] = {}


def _cards(counts: tuple[int, ...]) -> str:
    """Counts per card as the quoted words, one per card, in canonical order."""
    text = _CARDS.get(counts)
    if text is None:
        if len(_CARDS) > 50_000:
            _CARDS.clear()
        runs = _RUNS
        text = _CARDS[counts] = ",".join([runs[c][k] for c, k in enumerate(counts) if k])
    return text


def _ints(values: tuple[int, ...]) -> str:
    return ",".join(map(str, values))


#: The last text written for each part, with the tuple it was written from. A move
#: changes a few parts and shares the other tuples with the position before it
#: (``Round._clone``), so an identity test finds most parts already written.
_LAST: dict[str, tuple[object, object, str]] = {}


def _part(kind: str, key: object, key2: object, make: Any, *args: Any) -> str:
    last = _LAST.get(kind)
    if last is not None and last[0] is key and last[1] == key2:
        return last[2]
    text = make(*args)
    _LAST[kind] = (key, key2, text)  # one tuple, replaced whole: safe across threads
    return text


def _bonus(piles: tuple[tuple[int, ...], ...], taken: tuple[int, ...]) -> str:
    return (
        f'"3":[{_ints(piles[0][taken[0] :])}],"4":[{_ints(piles[1][taken[1] :])}],'
        f'"5":[{_ints(piles[2][taken[2] :])}]'
    )


def _tokens(taken: tuple[int, ...]) -> str:
    return ",".join([_TOKENS_LEFT[g][taken[g]] for g in _GOODS_BY_NAME])


def _won(pair: tuple[tuple[int, ...], tuple[int, ...]]) -> str:
    return f"[{_ints(pair[0])}],[{_ints(pair[1])}]"


def _deck(deck: tuple[int, ...], top: int) -> str:
    return ",".join([_QUOTED[c] for c in deck[top:]])


def canonical_position(match: Match) -> str:
    """``canonical_json(position_json(match))``, built straight from the tuples."""
    r = match.round
    bonus = _part("bonus", r.bonus, r.bonus_taken, _bonus, r.bonus, r.bonus_taken)
    tokens = _part("tokens", r.tokens_taken, None, _tokens, r.tokens_taken)
    goods = _part("goods", r.goods_won, None, _won, r.goods_won)
    won_bonus = _part("won", r.bonus_won, None, _won, r.bonus_won)
    discard = _part("discard", r.discard, None, _cards, r.discard)
    deck = _part("deck", r.deck, r.top, _deck, r.deck, r.top)
    h0, h1 = r.hands
    to_move = match.to_move
    return (
        f'{{"bonus":{{{bonus}}},"bonus_tokens":[{won_bonus}],"deck":[{deck}],'
        f'"discard":[{discard}],"goods_tokens":[{goods}],'
        f'"hands":[[{_cards(h0)}],[{_cards(h1)}]],'
        f'"herds":[{r.herds[0]},{r.herds[1]}],"market":[{_cards(r.market)}],'
        f'"round":{r.number},"round_over":{"true" if r.end is not None else "false"},'
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
