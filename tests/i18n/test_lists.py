"""Lists joined as the reader joins them (issue 33): no ", " written by hand between the
items of a list a page, a mail or a refusal shows. Persian joins with "،" and "و", Chinese
with "、" and "和", Ukrainian with "і" (CLDR's patterns, Babel's ``format_list``, through
``i18n.shown_list`` and the ``listed`` filter)."""

from __future__ import annotations

import re

import pytest
from markupsafe import Markup

from pbem.engine import Card
from pbem.engine.errors import MoveError
from pbem.i18n import shown_list, use_reader
from pbem.i18n.notation import card_name, parse, written
from pbem.i18n.words import error_text
from pbem.services.core import access
from pbem.services.play import game_clock, moves, new_games
from pbem.templating import listed
from tests.i18n.test_untranslated import prose, visible
from tests.mail.play import play, to_move, token
from tests.web.test_replay_verdicts import _judge

#: What joins the last two items of a list, in each language.
AND = {"en": " and ", "el": " και ", "fa": " و ", "uk": " і ", "zh": "和"}


@pytest.mark.parametrize("language", sorted(AND))
def test_a_list_is_joined_the_readers_way(language):
    a, b, c = ("甲", "乙", "丙") if language == "zh" else ("A", "B", "C")  # zh: words, no Latin
    with use_reader(language):
        assert shown_list([a, b]) == f"{a}{AND[language]}{b}"
        three = shown_list([a, b, c])
    assert ", " not in three or language in ("en", "el", "uk"), three
    assert {"fa": "،", "zh": "、"}.get(language, ",") in three


def test_the_filter_escapes_each_item_on_a_page_and_keeps_markup():
    class Context:
        class eval_ctx:
            autoescape = True

    with use_reader("zh"):
        joined = listed(Context, ["<b>", Markup("<i>x</i>")])
        assert joined == Markup("&lt;b&gt;和 <i>x</i>")  # the space: x is a Latin letter
        coded = listed(Context, ["a/2", "a/1"], code=True)  # 和 set apart from Latin
        assert coded == Markup('<code dir="ltr">a/2</code> 和 <code dir="ltr">a/1</code>')
        Context.eval_ctx.autoescape = False  # a text mail: as it is
        assert listed(Context, ["<b>", "c"]) == "<b>和 c"


@pytest.mark.parametrize("language", ["fa", "uk", "zh"])
def test_a_refused_sale_of_two_goods_names_them_the_readers_way(language):
    """The engine says which goods (its own words); the reader's layer names and joins them:
    zh "黄金和布料", never "黄金, 布料", whatever language the move was typed in."""
    for typed in ("en", language):
        text = written("sell 2 gold", language) if typed != "en" else "sell 2 gold"
        text += " " + card_name(Card.CLOTH, typed)
        with pytest.raises(MoveError) as refused:
            parse(text, typed)
        with use_reader(language):
            said = error_text(refused.value)
        gold, cloth = card_name(Card.GOLD, language), card_name(Card.CLOTH, language)
        assert f"{gold}{AND[language]}{cloth}" in said, (typed, said)
        assert f"{gold}, {cloth}" not in said, said


def _fa_game(env, language: str) -> str:
    seats = tuple(
        new_games.PlayerIn(name, f"{name.lower()}@example.test", language, "Asia/Tehran")
        for name in ("Ada", "Bo")
    )
    public_id = new_games.create_game(env, seats, first_player=0).public_id
    play(env, public_id, 12)
    return public_id


def _commas(text: str) -> list[str]:
    """Every ASCII comma a reader sees, with the words around it."""
    return re.findall(r"\S*\s?,\s?\S*", text)


@pytest.mark.parametrize("language", ["fa", "zh"])
def test_pages_and_mails_join_with_the_readers_commas(client, env, language):
    """My games, the replay's captions, the seat page, the board of a finished game and
    the mails: no ASCII comma between the items of a list in Persian or Chinese."""
    from tests.helpers import mails
    from tests.web.test_players import sign_in

    public_id = _fa_game(env, language)
    mine = token(env, public_id, 0)
    seat = client.get(f"/s/{mine}").text
    main = seat.split("<main", 1)[1].split("</main>", 1)[0]
    assert not _commas(visible("<main" + main)), _commas(visible("<main" + main))
    signed_in = client.application.test_client()
    sign_in(signed_in, env, "ada@example.test")
    me = signed_in.get(f"/me?lang={language}").text
    main = me.split("<main", 1)[1].split("</main>", 1)[0]
    assert "Bo" in main and not _commas(visible("<main" + main)), _commas(visible(main))
    left = 12 + 1
    moves.resign(env, token(env, public_id, to_move(env, public_id)), left, access.Client())
    _judge(env, public_id, lambda n, seat: (0.6, 0.5, 10.0))
    for url in (f"/s/{mine}/replay?n=5", f"/g/{public_id}/replay?n=13&as=all&lang={language}"):
        page = client.get(url).text
        assert "<figcaption>" in page, url
        main = page.split("<main", 1)[1].split("</main>", 1)[0]
        assert not _commas(visible("<main" + main)), (url, _commas(visible("<main" + main)))
    for mail in mails(env, public_id):
        for where, text in (("text", prose(mail.text_body)), ("html", visible(mail.html_body))):
            text = re.sub(r"https?://\S+|\S+@\S+", " ", text)
            assert not _commas(text), (mail.kind, where, _commas(text))


@pytest.mark.parametrize("language", ["uk", "zh", "fa"])
def test_the_digest_joins_each_games_line_the_readers_way(env, language):
    """A digest's line (the game, the last move, the deadline) is a list of the reader's:
    Ukrainian joins its last two with "і", Chinese with "和", Persian with "و"."""
    from sqlalchemy import select

    from pbem.services.play import seat_settings
    from pbem.services.scheduled import jobs
    from pbem.store.models import OutboxMessage

    seats = tuple(
        new_games.PlayerIn(name, f"{name.lower()}-{language}@example.test", language, "UTC")
        for name in ("Ada", "Bo")
    )
    clock = game_clock.GameClock(days_per_move=3, reminder_after_hours=24, reminder_every_hours=48)
    public_id = new_games.create_game(env, seats, first_player=0, clock=clock).public_id
    for seat in (0, 1):
        seat_settings.set_mail_mode(env, token(env, public_id, seat), "digest", access.Client())
    play(env, public_id, 2)
    env.clock._now = env.clock.now().replace(hour=8)
    assert jobs.send_digests(env) >= 1
    with env.db.read() as session:
        digest = session.scalars(
            select(OutboxMessage).where(
                OutboxMessage.kind == "digest", OutboxMessage.to_addr == seats[0].email
            )
        ).first()
    assert digest is not None
    line = next(x for x in digest.text_body.splitlines() if x.startswith("* "))
    assert AND[language] in line, line
    if language in ("fa", "zh"):  # their own commas: "،", "、"
        assert "," not in line, line


def test_persian_joins_the_last_two_without_a_serial_comma():
    """CLDR writes "پارچه، و چرم"; Persian writes "پارچه و چرم" (and "یا" for a choice),
    in a card list of a mail as in any list."""
    from pbem.i18n.words import card_list

    with use_reader("fa"):
        assert shown_list(["A", "B", "C"]) == "A،\u200f B و C"
        assert shown_list(["A", "B", "C", "D"], "or") == "A،\u200f B،\u200f C یا D"
        cards = card_list((Card.DIAMOND, Card.GOLD, Card.CLOTH))
    assert "، و" not in cards and " و " in cards, cards


def test_chinese_sets_digits_and_latin_letters_apart_evenly():
    """Chinese as its catalog writes it ("第 %(n)s 步"): a space between a digit or a Latin
    letter and a word, on both sides of a list's 和 too ("1 张黄金和 1 张皮革", "4 和 3"),
    and none beside full-width punctuation ("电脑（简单）卖出", not "电脑（简单） 卖出")."""
    from pbem.i18n import ngettext
    from pbem.i18n.words import card_list

    with use_reader("zh"):
        assert card_list((Card.GOLD, Card.LEATHER)) == "1 张黄金和 1 张皮革"
        assert shown_list(["4", "3"]) == "4 和 3"
        assert shown_list(["黄金", "布料"]) == "黄金和布料"
        assert shown_list(["A", "B", "C"], "or") == "A、B 或 C"
        sold = ngettext(
            "%(name)s sold %(cards)s for goods token %(tokens)s.",
            "%(name)s sold %(cards)s for goods tokens %(tokens)s.",
            2,
            name="电脑（简单）",
            cards=card_list((Card.GOLD, Card.GOLD)),
            tokens=shown_list(["4", "3"]),
        )
    assert sold == "电脑（简单）卖出 2 张黄金，获得货品钱币 4 和 3。", sold


def test_a_chinese_page_puts_no_space_after_a_labels_full_width_colon(client, env):
    """The seat and public pages' labels ("货品钱币：", "你的钱币：") meet their values with
    no space; an English label keeps its space."""
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("王", "wang@example.test", "zh", "Asia/Shanghai"),
            new_games.PlayerIn("Bo", "bo@example.test", "en"),
        ),
        first_player=0,
    )
    play(env, created.public_id, 6)
    for url in (f"/s/{created.tokens[0]}", f"/g/{created.public_id}?lang=zh"):
        text = re.sub(r"<[^>]+>", "", client.get(url).text.split("<main", 1)[1])
        assert "货品钱币：" in text, url
        assert not re.search(r"： ", text), (url, re.findall(r".{8}： .{4}", text))
    english = re.sub(r"<[^>]+>", "", client.get(f"/s/{created.tokens[1]}").text)
    assert "Goods tokens: " in english
