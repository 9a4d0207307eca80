"""A Persian page writes every number in Persian digits (۰-۹), as its translations and
its move notation do: one helper (``i18n.shown_number``, the ``num`` filter, gettext's
numeric params, the times) writes them, so no page mixes two kinds. Other languages keep
0-9."""

from __future__ import annotations

import re

from pbem.i18n import shown_number, use_reader
from pbem.services.play import new_games
from tests.mail.play import play

PERSIAN = re.compile("[\u06f0-\u06f9]")


def _visible(page: str) -> str:
    main = page.split("<main", 1)[1]
    main = re.sub(r"<(script|code)\b[^>]*>.*?</\1>", " ", main, flags=re.S)
    return re.sub(r"<[^>]+>", " ", main)


def test_one_helper_writes_numbers_in_the_readers_digits():
    with use_reader("fa"):
        assert shown_number(12) == "۱۲"
        assert shown_number(2.5) == "۲٫۵"
    with use_reader("en"):
        assert shown_number(12) == "12" and shown_number(2.5) == "2.5"


def test_a_persian_page_has_no_latin_digits(client, env):
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("داریوش", "dariush@example.test", "fa", "Asia/Tehran"),
            new_games.PlayerIn("Bo", "bo@example.test", "en"),
        ),
        first_player=0,
    )
    play(env, created.public_id, 12)
    pages = {
        "seat": f"/s/{created.tokens[0]}",
        "public": f"/g/{created.public_id}?lang=fa",
        "replay": f"/s/{created.tokens[0]}/replay?n=5",
    }
    for name, url in pages.items():
        text = _visible(client.get(url).text)
        text = text.replace("sha256", "")  # a name, not a number
        latin = re.findall(r"\S*[0-9]\S*", text)
        assert not latin, (name, latin)
        assert PERSIAN.search(text), name
    english = _visible(client.get(f"/s/{created.tokens[1]}").text)
    assert not PERSIAN.search(english) and re.search(r"[0-9]", english)
