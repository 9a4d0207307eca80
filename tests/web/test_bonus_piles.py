"""The bonus piles say what they are: "5+ cards: 5 tokens left", not "5 × 5+", each in a
<bdi> so that a right-to-left page does not turn it into "+5 × 5"."""

from __future__ import annotations

import re

from pbem.services.play import new_games
from tests.mail.play import new_game, token

BONUS = re.compile(r'<span class="bonus-pile" title="[^"]*"><bdi>([^<]*)</bdi></span>')


def test_the_bonus_piles_are_labelled_in_words(client, env):
    public_id = new_game(env, first=0)
    for url in (f"/g/{public_id}", f"/s/{token(env, public_id, 0)}"):
        page = client.get(url).text
        assert BONUS.findall(page) == [
            "3 cards: 7 tokens left",
            "4 cards: 6 tokens left",
            "5+ cards: 5 tokens left",
        ]
        assert "× 3" not in page and "× 5+" not in page


def test_a_persian_page_isolates_each_label(client, env):
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("داریوش", "dariush@example.test", "fa", "Asia/Tehran"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
    )
    page = client.get(f"/s/{created.tokens[0]}").text
    assert 'dir="rtl"' in page
    assert len(BONUS.findall(page)) == 3  # each label in its own <bdi>
