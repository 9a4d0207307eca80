"""RULES.md's hidden-information table: each view holds only what its reader may know."""

from __future__ import annotations

import dataclasses

from pbem.engine import Match, public_view, seat_view
from pbem.engine.views import OpenPlayer, SeatView, view_to_json

from .builders import make_match, make_round


def _fields(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def test_a_seat_sees_its_own_hand_herd_and_bonus_values_only():
    m = make_match(
        make_round(
            hands=("diamond gold", "cloth cloth spice"),
            herds=(2, 5),
            bonus_won=((3,), (8, 10)),
            goods_won=((5,), (7, 7)),
        )
    )
    v = seat_view(m, 0)
    assert [c.word for c in v.me.hand] == ["diamond", "gold"]
    assert v.me.herd == 2 and v.me.bonus_tokens == (3,)
    assert v.opponent == OpenPlayer(seat=1, hand_size=3, goods_tokens=(7, 7), bonus_count=2)
    assert _fields(type(v.opponent)) == {"seat", "hand_size", "goods_tokens", "bonus_count"}
    blob = str(view_to_json(v))
    assert "'herd': 5" not in blob and "10" not in blob  # the opponent's herd and bonus values


def test_no_view_carries_the_deck_order_or_bonus_piles():
    m = Match.new(bytes(32))
    for v in (seat_view(m, 0), seat_view(m, 1), public_view(m)):
        table = view_to_json(v)["table"]
        assert table["deck_size"] == 40
        assert "deck" not in table and "bonus" not in table
        assert set(table["bonus_left"].values()) == {7, 6, 5}


def test_the_public_view_has_no_hands_and_no_herds():
    m = Match.new(bytes(32))
    v = public_view(m)
    assert _fields(type(v)) == {"table", "players"}
    for p in v.players:
        assert isinstance(p, OpenPlayer)
    assert _fields(SeatView) == {"table", "me", "opponent"}
