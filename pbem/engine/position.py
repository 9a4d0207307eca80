"""The full position as JSON (FORMAT.md §5) and its hash (FORMAT.md §4 ``position``).

This is the engine's ``fen()``: an omniscient snapshot, used by ``pbem replay
--json`` and hashed into every logged move so that a replay that drifts from
what was played is caught and named.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .cards import BONUS_SIZES, GOODS
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
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def position_hash(match: Match) -> str:
    """SHA-256 of the canonical JSON of the position after a move."""
    return hashlib.sha256(canonical_json(position_json(match)).encode()).hexdigest()
