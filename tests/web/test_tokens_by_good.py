"""Tokens named by good and the bonus tokens apart (issue 33): a screen reader heard "Your
tokens: 4 3 2 1 4 14 rupees", and nobody could tell the bonus token from goods tokens."""

from __future__ import annotations

import random
import re

from pbem.i18n import use_reader
from pbem.i18n.words import card_label
from pbem.services.core import access
from pbem.services.play import game_pages, moves
from pbem.web.seat import tokens_won
from tests.mail.play import new_game, to_move, token


def _sold_three(env) -> tuple[str, game_pages.SeatPage]:
    """A game in which seat 0 has sold three or more cards of a good this round."""
    rng = random.Random(7)
    for _ in range(20):
        public_id = new_game(env, first=0)
        for n in range(1, 120):
            seat = to_move(env, public_id)
            if seat is None:
                break
            legal = game_pages.legal_moves(env, token(env, public_id, seat))
            big = [m for m in legal if m.startswith("sell") and int(m.split()[1]) >= 3]
            takes = [m for m in legal if m.startswith("take")] or legal
            moves.submit_move(
                env,
                token(env, public_id, seat),
                n,
                big[0] if big else rng.choice(takes),
                access.Client(),
            )
            page = game_pages.seat_page(env, token(env, public_id, 0), access.Client())
            if page.view.me.bonus_tokens and not page.view.table.game_over:
                return public_id, page
    raise AssertionError("no sale of three")


def test_each_token_is_named_by_its_good_and_the_bonus_token_apart(client, env):
    public_id, page = _sold_three(env)
    me = page.view.me
    groups = tokens_won(page.entries, 0, me.goods_tokens)
    assert all(good is not None for good, _ in groups)
    assert tuple(v for _, values in groups for v in values) == me.goods_tokens
    html = client.get(f"/s/{token(env, public_id, 0)}").text
    line = re.search(r"Your tokens:(.*?)</p>", html, re.S).group(1)
    text = " ".join(re.sub(r"<[^>]+>", " ", line).split())
    with use_reader("en"):
        for good, _ in groups:
            assert card_label(good) in text
    assert re.search(r"bonus tokens? \d", text), text


def test_a_diamond_token_is_named_too(app):
    """Card.DIAMOND is 0: the template asks whether a group has a good, not whether it is true."""
    from pbem.engine import Card

    with app.test_request_context(), use_reader("en"):
        macro = app.jinja_env.get_template("web/_board.html").module.won_tokens
        assert "diamond" in str(macro(((Card.DIAMOND, (7, 7)),))).casefold()


def test_tokens_that_the_log_does_not_add_up_to_stand_alone():
    assert tokens_won((), 0, (5, 3)) == ((None, (5, 3)),)
    assert tokens_won((), 0, ()) == ()
