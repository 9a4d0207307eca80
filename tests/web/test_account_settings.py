"""An account's language and zone come from its seats, the settings form shows the account's
real values, and saving changes only what the person changed (issue 32, finding 2)."""

from __future__ import annotations

from sqlalchemy import select

from pbem.services.core import access
from pbem.services.play import game_pages, new_games, seat_settings
from pbem.store.models import Player, Seat
from tests.helpers import csrf_of
from tests.web.test_players import sign_in, sign_in_mail


def _game(env, me: str, opponent: str, language: str, zone: str) -> str:
    return new_games.create_game(
        env,
        (
            new_games.PlayerIn("Олена", me, language, zone),
            new_games.PlayerIn("Op", opponent),
        ),
        first_player=0,
    ).public_id


def _player(env, email: str) -> dict:
    with env.db.read() as session:
        p = session.scalars(select(Player).where(Player.email == email)).one()
        return {
            c: getattr(p, c)
            for c in ("display_name", "mail_mode", "language", "timezone", "receipts")
        }


def _seats(env, email: str) -> list[dict]:
    with env.db.read() as session:
        rows = session.scalars(select(Seat).where(Seat.email == email).order_by(Seat.id)).all()
        return [
            {c: getattr(s, c) for c in ("name", "mail_mode", "language", "timezone", "receipts")}
            for s in rows
        ]


def test_an_account_takes_its_language_and_zone_from_its_seats(client, env):
    me = "olena@example.test"
    public_id = _game(env, me, "op1@example.test", "uk", "Europe/Kyiv")
    assert _player(env, me)["language"] == "uk"
    assert _player(env, me)["timezone"] == "Europe/Kyiv"
    sign_in(client, env, me)
    (mail,) = sign_in_mail(env, me)
    assert "посилання для входу" in mail.subject
    t = game_pages.seat_tokens(env, public_id)[0]
    seat_settings.set_reader(env, t, "zh", "Asia/Shanghai", access.Client())  # a seat changes them
    assert _player(env, me)["language"] == "zh"
    assert _player(env, me)["timezone"] == "Asia/Shanghai"
    client.post("/signout", data={"csrf_token": csrf_of(client.get("/me").text)})
    sign_in(client, env, me)
    assert "登录链接" in sign_in_mail(env, me)[-1].subject


def test_the_invited_player_who_accepts_in_a_language_has_an_account_in_it(client, env):
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("A", "a-accepts@example.test"),
            new_games.PlayerIn("B", "b@example.test"),
        ),
        first_player=0,
        await_players=True,
    )
    new_games.accept(
        env, created.tokens[1], b"x" * 32, access.Client(), language="fa", timezone="Asia/Tehran"
    )
    assert _player(env, "b@example.test")["language"] == "fa"
    assert _player(env, "b@example.test")["timezone"] == "Asia/Tehran"


def test_the_settings_form_shows_the_accounts_values_and_saving_one_field_keeps_the_rest(
    client, env
):
    me = "two-zones@example.test"
    _game(env, me, "op2@example.test", "zh", "Asia/Shanghai")  # the account is made in zh
    second = _game(env, me, "op3@example.test", "zh", "Asia/Shanghai")
    assert _player(env, me)["language"] == "zh"
    # a game typed in by anyone does not change the account; its own seat's link does
    _game(env, me, "op5@example.test", "fa", "Asia/Tehran")
    assert _player(env, me)["language"] == "zh"
    t = game_pages.seat_tokens(env, second)[0]
    seat_settings.set_reader(env, t, "uk", "Europe/Kyiv", access.Client())
    seats_before, player_before = _seats(env, me), _player(env, me)
    assert [s["language"] for s in seats_before] == ["zh", "uk", "fa"]
    assert player_before["language"] == "uk"
    sign_in(client, env, me)
    page = client.get("/me").text
    assert '<option value="uk" lang="uk" selected>' in page
    assert 'name="timezone" value="Europe/Kyiv"' in page
    form = {
        "csrf_token": csrf_of(page),
        "name": "Олена",
        "mail_mode": "digest",  # the one field changed
        "language": "uk",
        "timezone": "Europe/Kyiv",
    }
    assert client.post("/me/settings", data=form).status_code == 303
    after = _seats(env, me)
    assert [s["mail_mode"] for s in after] == ["digest", "digest", "digest"]
    for before, now in zip(seats_before, after, strict=True):
        assert {**before, "mail_mode": "digest"} == now  # zh and uk stay where they were
    assert _player(env, me) == {**player_before, "mail_mode": "digest"}
    # a field that was not sent is not changed either
    del form["language"], form["timezone"]
    form["csrf_token"] = csrf_of(client.get("/me").text)
    form["mail_mode"] = "each"
    assert client.post("/me/settings", data=form).status_code == 303
    assert [s["language"] for s in _seats(env, me)] == ["zh", "uk", "fa"]
    assert _player(env, me)["timezone"] == "Europe/Kyiv"
    # changing the language changes it everywhere, and only it
    form.update(csrf_token=csrf_of(client.get("/me").text), language="el", timezone="Europe/Kyiv")
    client.post("/me/settings", data=form)
    assert [(s["language"], s["timezone"]) for s in _seats(env, me)] == [
        ("el", "Asia/Shanghai"),
        ("el", "Europe/Kyiv"),
        ("el", "Asia/Tehran"),
    ]


def test_my_games_tells_times_in_the_accounts_zone(client, env):
    me = "kyiv-times@example.test"
    _game(env, me, "op4@example.test", "en", "Europe/Kyiv")
    sign_in(client, env, me)
    client.delete_cookie("pbem_tz")  # a browser that never said its zone
    page = client.get("/me")
    done = client.post(
        "/me/away", data={"csrf_token": csrf_of(page.text), "days": "1"}, follow_redirects=True
    )
    # 2026-12-03 09:00 UTC is 11:00 in Kyiv
    assert "Your clock is stopped until Dec 3, 2026, 11:00\u202fAM (GMT+02:00)" in done.text


def test_a_refused_form_comes_back_as_it_was_sent_and_changes_nothing(client, env):
    me = "kept-form@example.test"
    _game(env, me, "kept-op@example.test", "en", "UTC")
    before = _player(env, me)
    sign_in(client, env, me)
    page = client.get("/me").text
    form = {
        "csrf_token": csrf_of(page),
        "name": "Computer (strong)",  # refused: the computer's name
        "mail_mode": "digest",
        "language": "fa",
        "timezone": "Asia/Tehran",
    }
    refused = client.post("/me/settings", data=form)
    assert refused.status_code == 400 and "the computer&#39;s name" in refused.text
    assert 'name="name" value="Computer (strong)"' in refused.text
    assert '<option value="digest" selected>' in refused.text
    assert '<option value="fa" lang="fa" selected>' in refused.text
    assert 'name="timezone" value="Asia/Tehran"' in refused.text
    assert _player(env, me) == before
    bot = client.post("/me/bots", data={"csrf_token": csrf_of(page), "name": "Computer (easy)"})
    assert bot.status_code == 400 and 'value="Computer (easy)"' in bot.text


def test_the_home_forms_refusal_names_the_part_as_the_form_heads_it(client, env):
    home = client.get("/").text
    sent = {
        "csrf_token": csrf_of(home),
        "my_name": "Ada",
        "my_email": "home-parts@example.test",
        "their_name": "电脑（强）",
        "their_email": "home-parts-2@example.test",
    }
    refused = client.post("/", data=sent)
    assert refused.status_code == 400 and "Your opponent: " in refused.text
    assert "Second player" not in refused.text and 'value="电脑（强）"' in refused.text
    sent.update(my_name="Computer (easy)", level="easy")
    refused = client.post("/computer", data=sent)
    assert refused.status_code == 400 and "You: " in refused.text
