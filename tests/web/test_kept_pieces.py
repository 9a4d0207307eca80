"""The seat page's kept pieces (pbem/web/fragments.py): the same HTML as the macros render
afresh, in every language; made from their keys alone, so one seat's page never carries
another's; bounded. And the other things a page keeps: texts without params, the
language switcher's links, the links of a seat's routes."""

from __future__ import annotations

import re

import pytest
from flask import render_template_string, url_for
from markupsafe import Markup

from pbem.engine import Card
from pbem.engine.views import BonusPile
from pbem.i18n import LANGUAGES, _jinja_gettext, translations, use_reader
from pbem.web.fragments import Pieces
from pbem.web.locale import language_links, switch_language
from tests.helpers import link_in, mails
from tests.web.test_play import assert_shows_only_own_cards, omniscient, start_game

CSRF = re.compile(r'name="csrf_token" value="[^"]*"')
FRESH = """{% from "web/_board.html" import card, card_backs, token_list, piles -%}
{% if what == "cards" %}{% for c in cards %}{{ card(c, selectable, where, size) }}{% endfor %}
{%- elif what == "backs" %}{{ card_backs(n) }}
{%- elif what == "tokens" %}{{ token_list(values, kind) }}
{%- else %}{{ piles(table) }}{% endif %}"""
TABLE_TOKENS = {
    Card.DIAMOND: (7, 7, 5, 5, 5),
    Card.GOLD: (6, 6),
    Card.SILVER: (),
    Card.CLOTH: (5, 3, 3, 2, 2, 1, 1),
    Card.SPICE: (1,),
    Card.LEATHER: (4, 3, 2, 1, 1, 1, 1, 1, 1),
}


class Table:
    """What the ``piles`` macro reads of a table."""

    tokens = TABLE_TOKENS
    bonus_piles = (BonusPile(3, 7, False), BonusPile(4, 0, False), BonusPile(5, 1, True))


def fresh(what: str, **values: object) -> str:
    """The macro rendered as the page rendered it before the pieces were kept."""
    return render_template_string(FRESH, what=what, **values)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_kept_pieces_are_the_macros_html_in_every_language(app, language):
    pieces: Pieces = app.jinja_env.globals["kept"]  # type: ignore[assignment]
    with app.test_request_context("/"), use_reader(language):
        for _ in range(2):  # rendered, then kept
            for where, size in (("market", ""), ("hand", ""), ("herd", "small")):
                for selectable in (True, False):
                    cards = [*Card, "camel"]
                    kept = pieces.cards(cards, selectable, where, size)
                    assert kept == fresh(
                        "cards", cards=cards, selectable=selectable, where=where, size=size
                    )
                    assert isinstance(kept, Markup)
            assert pieces.herd(3, True) == fresh(
                "cards", cards=["camel"] * 3, selectable=True, where="herd", size="small"
            )
            for n in range(8):
                assert pieces.backs(n) == fresh("backs", n=n)
            for values, kind in (((), "goods"), ((5, 3, 1), "goods"), ((10, 8), "bonus")):
                assert pieces.tokens(values, kind) == fresh("tokens", values=values, kind=kind)
            assert pieces.piles(Table()) == fresh("piles", table=Table())
        assert len(pieces) > 0


def test_a_piece_is_rendered_from_its_key_alone(app):
    """Every key is the language, the piece's name and plain values: no seat, no token."""
    pieces: Pieces = app.jinja_env.globals["kept"]  # type: ignore[assignment]
    with app.test_request_context("/"), use_reader("fa"):
        pieces.cards([Card.GOLD], True, "hand")
        pieces.piles(Table())
        pieces.tokens((4, 4))
    plain = (str, int, bool, Card, BonusPile, type(None))

    def only_plain(value: object) -> bool:
        if isinstance(value, tuple):
            return all(only_plain(v) for v in value)
        return isinstance(value, plain)

    assert pieces._kept and all(only_plain(key) for key in pieces._kept)
    assert all(key[0] == "fa" for key in pieces._kept)


def test_one_seats_page_is_the_same_whatever_another_seat_viewed_before(app, client, env):
    """Seat 1's page on an app that has kept nothing equals it on an app that has kept
    the pieces of seat 0's pages in every language first (and shows only its own cards)."""
    public_id = start_game(client)
    links = [link_in(mails(env, public_id, seat=seat)[-1]) for seat in (0, 1)]
    state = omniscient(env, public_id)

    def page(link: str, language: str) -> str:
        answer = app.test_client().get(f"{link}?lang={language}")
        assert answer.status_code == 200
        return CSRF.sub("", answer.text)

    first = {lang: page(links[1], lang) for lang in LANGUAGES}  # nothing kept yet
    pieces: Pieces = app.jinja_env.globals["kept"]  # type: ignore[assignment]
    pieces._kept.clear()
    for lang in LANGUAGES:
        page(links[0], lang)
    assert len(pieces) > 0
    for lang in LANGUAGES:
        again = page(links[1], lang)
        assert again == first[lang]
    assert_shows_only_own_cards(first["en"], state, 1)
    token0 = links[0].rsplit("/", 1)[1]
    assert token0 not in first["en"]


def test_the_pieces_are_bounded_and_the_oldest_go_first(app):
    pieces = Pieces(app.jinja_env, bound=5)
    with app.test_request_context("/"), use_reader("el"):
        shown = [pieces.backs(n) for n in range(12)]
        assert len(pieces) == 5
        assert [key[2] for key in pieces._kept] == list(range(7, 12))
        assert [pieces.backs(n) for n in range(12)] == shown  # dropped ones render again
        assert len(pieces) == 5


def test_nothing_is_kept_where_templates_reload(app):
    app.jinja_env.auto_reload = True
    pieces = Pieces(app.jinja_env)
    with app.test_request_context("/"), use_reader("uk"):
        assert pieces.backs(3) == fresh("backs", n=3)
    assert len(pieces) == 0


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_texts_without_params_are_kept_as_they_were_made(app, language):
    """A kept text is what the catalog's text made each time: a ``Markup`` where the page
    escapes, a ``str`` where it does not, ``%%`` read as ``%``."""
    catalog = translations(language)
    messages = ("Save", "The game is frozen.", "100%% <sure>", "Your turn")
    with app.test_request_context("/"), use_reader(language):
        for escaping in (True, False):
            jinja = app.jinja_env.overlay(autoescape=escaping)
            for message in messages:
                text = catalog.gettext(message)
                made = (Markup(text) if escaping else text) % {}
                for _ in range(2):  # made, then kept
                    got = _jinja_gettext(jinja.from_string("").new_context(), message)
                    assert got == made and type(got) is type(made)
                assert jinja.from_string("{{ _(m) }}").render(m=message) == made


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/?lang=el&x=1",
        "/?x=pbem-language-slot",  # the slot's own text in an argument: built one by one
        "/nothing/here?a=b",
    ],
)
def test_language_links_are_what_switch_language_makes(app, path):
    with app.test_request_context(path):
        app.preprocess_request()
        assert language_links() == {code: switch_language(code) for code in LANGUAGES}


def test_kept_urls_are_url_fors(app):
    kept_url = app.jinja_env.globals["kept_url"]
    cases = [
        ("seat.claim", {"token": "WyJhIiwwXQ.abc-_"}),
        ("seat.view", {"token": "a b/c?d"}),  # quoted: built by url_for itself
        ("pages.game", {"public_id": "g-123"}),
        ("static", {"filename": "seat.js"}),
    ]
    for base in ("", "/under/a/prefix"):
        with app.test_request_context("/", base_url=f"http://pbem.test{base}"):
            for endpoint, value in cases:
                for _ in range(2):
                    assert kept_url(endpoint, **value) == url_for(endpoint, **value)
