"""The seat page lists its legal moves by the cards that make them, for static/seat.js:
every legal move once, in the reader's notation, and none when it is not the seat's turn."""

from __future__ import annotations

import json
import re

from pbem.services.core import access
from pbem.services.play import game_pages, moves, seat_settings
from tests.mail.play import new_game, token

CHOICES = re.compile(r'<script type="application/json" id="choices">(.*?)</script>', re.S)


def _choices(client, env, public_id: str, seat: int) -> dict | None:
    page = client.get(f"/s/{token(env, public_id, seat)}")
    assert page.status_code == 200
    found = CHOICES.search(page.text)
    return json.loads(found.group(1)) if found else None


def test_the_seat_to_move_gets_each_legal_move_by_its_cards(client, env):
    public_id = new_game(env, first=0)
    choices = _choices(client, env, public_id, 0)
    legal = game_pages.legal_moves(env, token(env, public_id, 0))
    assert choices is not None and choices["together"] == ["camel"]
    assert sorted(choices["moves"].values()) == sorted(legal)
    key = next(k for k, text in choices["moves"].items() if text == "camels")
    assert re.fullmatch(r"market:camel(,camel)*;hand:;herd:", key)
    assert _choices(client, env, public_id, 1) is None  # not its turn: nothing to click


def test_the_moves_are_written_in_the_readers_notation(client, env):
    # addresses of its own: the seat's language, chosen here, becomes their accounts'
    public_id = new_game(env, first=0, emails=("zh-ada@example.test", "zh-bo@example.test"))
    seat_settings.set_reader(env, token(env, public_id, 0), "zh", "Asia/Shanghai", access.Client())
    choices = _choices(client, env, public_id, 0)
    assert choices is not None and "拿 全部 骆驼" in choices["moves"].values()
    moves.submit_move(env, token(env, public_id, 0), 1, "camels", access.Client())
    assert _choices(client, env, public_id, 0) is None
