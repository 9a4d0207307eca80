""" "Sell all" over HTTP: the record holds the sale of every card of that good in the
mover's hand, never of one, and a move wrapped in invisible marks and punctuation
reads as the move it looks like."""

from __future__ import annotations

import random

from pbem.engine import GOODS, Card, Match, TakeGood
from pbem.i18n.notation import card_name
from tests.helpers import choose_reader, csrf_of, link_in, mails, next_n_of
from tests.web.test_play import omniscient, start_game


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _to_a_sale(client, env, public_id: str) -> tuple[Match, int, Card]:
    """Play random takes until the seat to move holds 2 or more of some good."""
    links = {seat: link_in(mails(env, public_id, seat=seat)[-1]) for seat in (0, 1)}
    rnd = random.Random(7)
    for _ in range(60):
        state = omniscient(env, public_id)
        seat = state.to_move
        hand = state.round.hands[seat]
        held = [g for g in GOODS if hand[g] >= 2]
        if held:
            return state, seat, rnd.choice(held)
        moves = state.legal_moves()
        takes = [m for m in moves if isinstance(m, TakeGood)]
        move = rnd.choice(takes or moves)
        token = links[seat].split("/")[-1]
        n = client.get("/api/seat", headers=_bearer(token)).get_json()["next_n"]
        done = client.post(
            "/api/seat/moves", json={"n": n, "move": str(move)}, headers=_bearer(token)
        )
        assert done.status_code == 201, done.text
    raise AssertionError("no seat came to hold two of a good")


def test_sell_all_through_the_api_records_the_whole_sale(client, env):
    public_id = start_game(client)
    state, seat, good = _to_a_sale(client, env, public_id)
    have = state.round.hands[seat][good]
    token = link_in(mails(env, public_id, seat=seat)[-1]).split("/")[-1]
    n = client.get("/api/seat", headers=_bearer(token)).get_json()["next_n"]

    missing = next(g for g in GOODS if state.round.hands[seat][g] == 0)
    refused = client.post(
        "/api/seat/moves", json={"n": n, "move": f"sell all {missing.word}"}, headers=_bearer(token)
    )
    assert refused.status_code == 422
    assert refused.get_json()["code"] == "sell_all_none"
    assert missing.word in refused.get_json()["error"]

    typed = f"\ufeff\u200eSell all\u200b {good.word}s!\u200f"
    preview = client.post("/api/seat/preview", json={"n": n, "move": typed}, headers=_bearer(token))
    assert preview.status_code == 200, preview.text
    assert preview.get_json()["move"] == f"sell {have} {good.word}"
    done = client.post("/api/seat/moves", json={"n": n, "move": typed}, headers=_bearer(token))
    assert done.status_code == 201, done.text
    assert done.get_json()["move"] == f"sell {have} {good.word}"
    after = omniscient(env, public_id)
    assert after.round.hands[seat][good] == 0 or after.round.number > state.round.number
    logged = client.get("/api/seat", headers=_bearer(token)).get_json()["moves"][-1]
    assert logged["move"] == f"sell {have} {good.word}" and logged["n"] == n


def test_sell_all_typed_in_chinese_on_the_seat_page(client, env):
    # addresses of its own: the seat's language, chosen here, becomes their accounts'
    public_id = start_game(
        client, ("Ada", "zh-sell-ada@example.test"), ("Bo", "zh-sell-bo@example.test")
    )
    state, seat, good = _to_a_sale(client, env, public_id)
    have = state.round.hands[seat][good]
    link = link_in(mails(env, public_id, seat=seat)[-1])
    assert choose_reader(client, link, "zh", "Asia/Shanghai").status_code == 303
    page = client.get(link)
    n = next_n_of(page.text)
    typed = f"\u202b卖出全部{card_name(good, 'zh')}。\u202c"
    preview = client.post(
        f"{link}/preview", data={"csrf_token": csrf_of(page.text), "n": n, "move": typed}
    )
    assert preview.status_code == 200, preview.text
    done = client.post(
        f"{link}/move", data={"csrf_token": csrf_of(preview.text), "n": n, "move": typed}
    )
    assert done.status_code == 303, done.text
    logged = client.get("/api/seat", headers=_bearer(link.split("/")[-1])).get_json()["moves"][-1]
    assert logged["move"] == f"sell {have} {good.word}"
