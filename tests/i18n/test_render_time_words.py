"""Words of the game are put in the reader's language when a page is rendered, never once
when its template is compiled (Jinja folds a filter over a constant at compile time: the
herd's camels of a Chinese page read "Camel" after an English page compiled it first)."""

from __future__ import annotations

import re

from pbem.engine import rng
from pbem.i18n import use_reader
from pbem.services.core.access import Client
from pbem.services.play import game_pages, new_games


def test_a_filter_over_a_constant_follows_each_reader(app):
    template = app.jinja_env.from_string('{{ "camel" | card_label }} {{ "gold" | card_label }}')
    with use_reader("en"):
        assert template.render() == "camel gold"
    with use_reader("zh"):
        assert template.render() == "骆驼 黄金"
    with use_reader("el"):
        assert "καμήλα" in template.render()


#: A seed whose deal gives both seats camels (two and one): a random deal may give a seat
#: none, and playing on until it takes some could take more moves than any bound.
BOTH_HERDS = bytes(32)


def test_the_herd_of_a_chinese_seat_is_named_in_chinese(client, env, monkeypatch):
    monkeypatch.setattr(rng, "new_seed", lambda: BOTH_HERDS)
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test", "en"),
            new_games.PlayerIn("梅", "mei@example.test", "zh"),
        ),
        first_player=0,
    )
    pages = [game_pages.seat_page(env, t, Client()) for t in created.tokens]
    assert [p.view.me.herd for p in pages] == [2, 1]
    english = client.get(f"/s/{created.tokens[0]}").text  # compiles the page in English
    chinese = client.get(f"/s/{created.tokens[1]}").text
    assert set(_herd_names(chinese)) == {"骆驼"}
    assert set(_herd_names(english)) == {"camel"}


def _herd_names(page: str) -> list[str]:
    herd = page.split('class="cards herd"', 1)[1].split("</div>", 1)[0]
    return re.findall(r'<span class="name">([^<]*)</span>', herd)
