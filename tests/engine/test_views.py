"""The hidden-information table of docs/rules.md §9: each view holds only what its
reader may know."""

from __future__ import annotations

import dataclasses

from pbem.engine import Match, public_view, seat_view
from pbem.engine.views import OpenPlayer, SeatView, view_to_json

from .builders import make_match, make_round


def _fields(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def _herds_match():
    return make_match(
        make_round(
            hands=("diamond gold", "cloth cloth spice"),
            herds=(2, 5),
            bonus_won=((3,), (8, 10)),
            goods_won=((5,), (7, 7)),
        )
    )


def test_a_seat_sees_its_own_hand_and_bonus_values_only():
    v = seat_view(_herds_match(), 0)
    assert [c.word for c in v.me.hand] == ["diamond", "gold"]
    assert v.me.herd == 2 and v.me.bonus_tokens == (3,)
    assert v.opponent == OpenPlayer(seat=1, hand_size=3, herd=5, goods_tokens=(7, 7), bonus_count=2)
    assert _fields(type(v.opponent)) == {"seat", "hand_size", "herd", "goods_tokens", "bonus_count"}
    opponent = view_to_json(v)["opponent"]
    assert opponent == {
        "seat": 1,
        "hand_size": 3,
        "herd": 5,
        "goods_tokens": [7, 7],
        "bonus_count": 2,
    }


def test_both_herd_sizes_are_in_every_view():
    """Every camel taken and given back is a public move, so each herd's size is public:
    the engine puts both in each seat's view and in the spectator's, and so in the JSON."""
    m = _herds_match()
    for seat in (0, 1):
        v = seat_view(m, seat)
        assert (v.me.herd, v.opponent.herd) == ((2, 5) if seat == 0 else (5, 2))
        data = view_to_json(v)
        assert {data["me"]["herd"], data["opponent"]["herd"]} == {2, 5}
    public = public_view(m)
    assert [p.herd for p in public.players] == [2, 5]
    assert [p["herd"] for p in view_to_json(public)["players"]] == [2, 5]


def test_no_view_carries_the_deck_order_or_bonus_piles():
    m = Match.new(bytes(32))
    for v in (seat_view(m, 0), seat_view(m, 1), public_view(m)):
        table = view_to_json(v)["table"]
        assert table["deck_size"] == 40
        assert "deck" not in table and "bonus" not in table
        assert set(table["bonus_left"].values()) == {7, 6, 5}


def test_the_public_view_has_no_hands():
    m = Match.new(bytes(32))
    v = public_view(m)
    assert _fields(type(v)) == {"table", "players"}
    for p in v.players:
        assert isinstance(p, OpenPlayer)
    assert _fields(SeatView) == {"table", "me", "opponent"}
