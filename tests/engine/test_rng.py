"""docs/record-format.md §2: the seeded randomness, checked against
tests/data/shuffle-vectors.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem.engine import Match, rng
from pbem.engine.cards import BONUS_TOKENS, SHUFFLED_CARDS

VECTORS = json.loads((Path(__file__).parents[1] / "data" / "shuffle-vectors.json").read_text())
CASES = [(v, r) for v in VECTORS for r in (1, 2, 3)]


def test_first_bytes_of_the_round_one_deck_stream_for_the_zero_seed():
    assert rng.Stream(bytes(32), "jaipur/1/round/1/deck").read(8).hex() == "e4ee742eedf88372"


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["seed"][:8])
def test_commitment_and_first_player(vector):
    seed = bytes.fromhex(vector["seed"])
    assert rng.commitment(seed) == vector["commitment"]
    assert rng.first_player(seed) == vector["first_player"]
    assert Match.new(seed).to_move == vector["first_player"]


@pytest.mark.parametrize(("vector", "r"), CASES, ids=lambda x: str(x)[:8])
def test_round_deck_and_bonus_piles(vector, r):
    seed = bytes.fromhex(vector["seed"])
    deck = rng.shuffled(seed, SHUFFLED_CARDS, f"jaipur/1/round/{r}/deck")
    assert [c.word for c in deck] == vector[f"round{r}_deck"]
    for size in (3, 4, 5):
        pile = rng.shuffled(seed, BONUS_TOKENS[size], f"jaipur/1/round/{r}/bonus{size}")
        assert pile == vector[f"round{r}_bonus{size}"]


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["seed"][:8])
def test_the_deal_follows_the_vector(vector):
    seed = bytes.fromhex(vector["seed"])
    m = Match.new(seed)
    deck = vector["round1_deck"]
    starter = vector["first_player"]
    assert sorted(c.word for c in m.round.hand(starter)) == sorted(
        w for w in deck[:5] if w != "camel"
    )
    assert m.round.herds[starter] == deck[:5].count("camel")
    assert sorted(c.word for c in m.round.hand(1 - starter)) == sorted(
        w for w in deck[5:10] if w != "camel"
    )
    assert sorted(c.word for c in m.round.market_cards()) == sorted(["camel"] * 3 + deck[10:12])
    assert [c.word for c in m.round.deck_cards()] == deck[12:]
    assert m.round.bonus_left(3) == tuple(vector["round1_bonus3"])


def test_below_rejects_the_biased_tail():
    class Fixed(rng.Stream):
        def __init__(self, values):
            self.values = list(values)

        def read(self, n):
            return self.values.pop(0).to_bytes(8, "big")

    # 2**64 - 1 is in the biased tail for n = 3 and must be discarded
    assert Fixed([2**64 - 1, 7]).below(3) == 1


def test_mixed_seed_depends_on_both_contributions():
    server = bytes(32)
    a, b = b"a" * 16, b"b" * 16
    seed = rng.mix_seed(server, a, b)
    assert seed != rng.mix_seed(server, b, a)
    assert len(seed) == 32
    with pytest.raises(ValueError):
        rng.mix_seed(server, b"short", b)
