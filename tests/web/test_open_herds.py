"""Both herds' sizes are public: every camel taken and given back is a public move, so
hiding a herd helped only the player who counts. The engine's views carry both; the
seat page, the public page, the replay and the JSON API show what the views carry."""

from __future__ import annotations

import random

from pbem.engine import load_record, replay
from pbem.services.core import access
from pbem.services.play import game_pages, moves
from pbem.services.records import game_records
from tests.mail.play import new_game, token


def _camels(num: int) -> str:
    return f"Herd: {num} camel" if num == 1 else f"Herd: {num} camels"


def _herds_apart(env) -> tuple[str, tuple[int, int]]:
    """A running game whose two herds differ (random legal moves, camels first)."""
    rnd = random.Random(7)
    public_id = new_game(env, first=0)
    tokens = game_pages.seat_tokens(env, public_id)
    for n in range(1, 60):
        match = replay(load_record(game_records.operator_record(env, public_id)))
        herds = match.round.herds
        if herds[0] != herds[1] and not match.is_over and n > 4:
            return public_id, (herds[0], herds[1])
        t = tokens[match.to_move]
        legal = game_pages.legal_moves(env, t)
        camels = [m for m in legal if m == "camels"]
        moves.submit_move(env, t, n, (camels or [rnd.choice(legal)])[0], access.Client())
    raise AssertionError("the herds never differed")


def test_the_seat_view_and_the_public_view_carry_both_herds(env):
    public_id, herds = _herds_apart(env)
    public = game_pages.public_page(env, public_id).view
    assert tuple(p.herd for p in public.players) == herds
    for seat in (0, 1):
        page = game_pages.seat_page(env, token(env, public_id, seat), access.Client())
        assert (page.view.me.herd, page.view.opponent.herd) == (herds[seat], herds[1 - seat])


def test_every_page_and_the_api_show_both_herds(client, env):
    public_id, herds = _herds_apart(env)
    game_page = client.get(f"/g/{public_id}").text
    assert _camels(herds[0]) in game_page and _camels(herds[1]) in game_page
    for seat in (0, 1):
        link = f"/s/{token(env, public_id, seat)}"
        seat_page = client.get(link).text
        assert _camels(herds[1 - seat]) in seat_page  # the opponent's, next to their cards
        assert "herd not shown" not in seat_page
        replay_page = client.get(f"{link}/replay").text  # the seat's own perspective
        assert _camels(herds[1 - seat]) in replay_page and _camels(herds[seat]) in replay_page
        data = client.get("/api/seat", headers={"Authorization": f"Bearer {link[3:]}"}).json
        assert (data["view"]["me"]["herd"], data["view"]["opponent"]["herd"]) == (
            herds[seat],
            herds[1 - seat],
        )
