"""What testers found: off-site language links, sessions outliving sign-out, cookies
without Secure, mail relays without limits, uploads kept forever, and an address
change that told who plays."""

from __future__ import annotations

import io
import json
import re

import pytest
from sqlalchemy import select

from pbem.config import Limits
from pbem.services.play import challenges, new_games
from pbem.services.records import game_records
from pbem.store.models import OutboxMessage, Player
from pbem.web import create_app
from tests.helpers import csrf_of
from tests.mail.play import new_game, token
from tests.support import play_random
from tests.web.test_players import fresh_ip, sign_in

LANGUAGE_LINKS = re.compile(r'<nav class="languages".*?</nav>', re.S)
HREF = re.compile(r'href="([^"]*)"')


def language_links(html: str) -> list[str]:
    return HREF.findall(LANGUAGE_LINKS.search(html).group(0))


# ------------------------------------------------------------ links on error pages


@pytest.mark.parametrize("path", ["/\\evil.example/x", "//evil.example/x", "/%5Cevil.example/x"])
def test_an_unmatched_path_links_to_the_home_page_only(client, path):
    page = client.get(path)
    assert page.status_code == 404
    links = language_links(page.text)
    assert links and all(re.fullmatch(r"/\?lang=[a-z]{2}", link) for link in links), links
    assert "evil.example" not in LANGUAGE_LINKS.search(page.text).group(0)


def test_a_matched_page_keeps_its_route_and_arguments_but_not_url_for_options(client, env):
    public_id = new_game(env)
    page = client.get(f"/g/{public_id}?_external=1&_scheme=javascript&x=1")
    links = language_links(page.text)
    assert all(link.startswith(f"/g/{public_id}?") for link in links), links
    assert all("_external" not in link and "_scheme" not in link for link in links)
    missing = client.get("/g/nosuchgame")  # a route matched, the game did not
    assert missing.status_code == 404
    assert all(link.startswith("/g/nosuchgame?lang=") for link in language_links(missing.text))


# ------------------------------------------------------------ sessions and cookies


def test_a_cookie_replayed_after_sign_out_signs_nobody_in(app, env):
    browser = app.test_client()
    sign_in(browser, env, "leaver@example.test")
    cookie = browser.get_cookie("session").value
    page = browser.get("/me")
    assert page.status_code == 200
    assert browser.post("/signout", data={"csrf_token": csrf_of(page.text)}).status_code == 303
    thief = app.test_client()
    thief.set_cookie("session", cookie)
    assert thief.get("/me").status_code == 403  # the server ended it, not only the browser
    other = app.test_client()  # another browser of the same player stays signed in
    sign_in(other, env, "leaver@example.test")
    assert other.get("/me").status_code == 200


def test_every_cookie_is_secure_outside_development(env, database_url):
    production = env.config.with_(env="production", base_url="https://pbem.test")
    env.config = production
    app = create_app(env=env)
    browser = app.test_client()
    # addresses of its own: its seat's language, chosen below, becomes their accounts'
    public_id = new_game(env, emails=("cookie-ada@example.test", "cookie-bo@example.test"))
    answers = [
        browser.get("/?lang=el"),  # the session (CSRF token) and the language
        browser.get(f"/s/{token(env, public_id, 0)}"),  # a seat page remembers its reader
    ]
    page = browser.get(f"/s/{token(env, public_id, 0)}")
    answers.append(
        browser.post(
            f"/s/{token(env, public_id, 0)}/reader",
            data={"csrf_token": csrf_of(page.text), "language": "uk", "timezone": "Europe/Kyiv"},
        )
    )
    cookies = [c for a in answers for c in a.headers.getlist("Set-Cookie")]
    names = {c.split("=", 1)[0] for c in cookies}
    assert {"session", "pbem_lang", "pbem_tz"} <= names
    for cookie in cookies:
        assert "; Secure" in cookie and "SameSite=Lax" in cookie, cookie


def test_cookies_are_not_secure_in_development(client):
    cookies = client.get("/?lang=el").headers.getlist("Set-Cookie")
    assert cookies and all("Secure" not in c for c in cookies)


# ------------------------------------------------------------ rate limits


def _new_game_form(client, their="victim@example.test", ip="10.200.0.1", path="/"):
    home = client.get("/")
    return client.post(
        path,
        data={
            "csrf_token": csrf_of(home.text),
            "my_name": "Spammer",
            "my_email": "spam@example.test",
            "their_name": "Buy cheap rupees now",
            "their_email": their,
        },
        environ_base={"REMOTE_ADDR": ip},
    )


def _limited_app(env, **limits):
    env.config = env.config.with_(limits=Limits(**limits))
    app = create_app(env=env)
    return app.test_client()


def test_game_creation_is_limited_per_client_and_the_window_reopens(env):
    client = _limited_app(env, games_per_client="3 per hour", invitations_per_address="none")
    statuses = [_new_game_form(client, f"v{i}@example.test").status_code for i in range(4)]
    assert statuses == [303, 303, 303, 429]
    refused = _new_game_form(client, "v9@example.test")
    assert "Too many new games from here" in refused.text and "Slow down" in refused.text
    assert 0 < int(refused.headers["Retry-After"]) <= 3600
    greek = _new_game_form(client, "v10@example.test", path="/?lang=el")
    assert greek.status_code == 429 and '<html lang="el"' in greek.text
    assert "Too many new games" not in greek.text
    env.clock.advance(hours=1, seconds=1)
    assert _new_game_form(client, "v11@example.test").status_code == 303
    assert _new_game_form(client, "v12@example.test", ip="10.200.0.2").status_code == 303


def test_invitations_to_one_address_are_limited_whoever_sends_them(env):
    client = _limited_app(env, games_per_client="none", invitations_per_address="2 per hour")
    before = _mails_to(env, "target@example.test")
    statuses = [
        _new_game_form(client, "target@example.test", ip=f"10.201.0.{i}").status_code
        for i in range(1, 5)
    ]
    assert statuses == [303, 303, 429, 429]
    assert _mails_to(env, "target@example.test") == before + 2


def _mails_to(env, address: str) -> int:
    with env.db.read() as session:
        query = select(OutboxMessage).where(OutboxMessage.to_addr == address)
        return len(session.scalars(query).all())


def test_challenges_are_limited(env):
    client = _limited_app(env, challenges_per_client="2 per hour")
    sign_in(client, env, "challenger@example.test")
    page = client.get("/challenges")
    csrf = csrf_of(page.text)
    statuses = [
        client.post("/challenges", data={"csrf_token": csrf, "days_per_move": "3"}).status_code
        for _ in range(3)
    ]
    assert statuses == [303, 303, 429]
    with env.db.read() as session:  # the shared listing is for the other tests again
        me = session.scalars(select(Player.id).where(Player.email == "challenger@example.test"))
        player_id = me.one()
    for challenge in challenges.open_list(env, player_id):
        if challenge.mine:
            challenges.withdraw(env, challenge.public_id, player_id)


def test_record_uploads_are_limited_per_client(env):
    client = _limited_app(env, uploads_per_client="2 per hour")
    finished = new_game(env)
    play_random(env, finished)
    data = client.get(f"/g/{finished}/record.json").data
    csrf = csrf_of(client.get("/").text)
    statuses = [
        client.post(
            "/records",
            data={"csrf_token": csrf, "record": (io.BytesIO(data), "game.json")},
            content_type="multipart/form-data",
        ).status_code
        for _ in range(3)
    ]
    assert statuses == [303, 303, 429]


# ------------------------------------------------------------ uploads expire


def _upload(client, csrf, data: bytes) -> str:
    answer = client.post(
        "/records",
        data={"csrf_token": csrf, "record": (io.BytesIO(data), "game.json")},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 303, answer.text
    return answer.headers["Location"]


def _records(env, count: int) -> list[bytes]:
    out = []
    for seed in range(count):
        public_id = new_game(env)
        play_random(env, public_id, seed=seed)
        out.append(json.dumps(game_records.export_record(env, public_id)).encode())
    return out


def test_uploads_expire_after_the_set_days_under_the_faked_clock(env):
    env.config = env.config.with_(upload_days=7)
    client = create_app(env=env).test_client()
    csrf = csrf_of(client.get("/").text)
    first, second = _records(env, 2)
    old = _upload(client, csrf, first)
    assert client.get(old).status_code == 200
    env.clock.advance(days=6)
    assert client.get(old).status_code == 200
    env.clock.advance(days=1, seconds=1)
    gone = client.get(old)
    assert gone.status_code == 404 and "not kept forever" in gone.text
    new = _upload(client, csrf, second)  # an upload drops what has expired
    folder = env.config.instance_path / "records"
    assert sorted(p.stem for p in folder.glob("*.json")) == [new.rsplit("/", 1)[1]]


@pytest.mark.slow
def test_uploads_are_capped_in_number_and_size_oldest_first(env):
    env.config = env.config.with_(upload_max_files=2)
    client = create_app(env=env).test_client()
    csrf = csrf_of(client.get("/").text)
    files = _records(env, 3)
    kept = []
    for data in files:
        kept.append(_upload(client, csrf, data))
        env.clock.advance(minutes=1)
    assert client.get(kept[0]).status_code == 404
    assert client.get(kept[1]).status_code == 200 and client.get(kept[2]).status_code == 200
    env.config = env.config.with_(upload_max_bytes=len(files[0]) + 10, upload_max_files=100)
    client = create_app(env=env).test_client()
    csrf = csrf_of(client.get("/").text)
    _upload(client, csrf, files[0])
    assert len(list((env.config.instance_path / "records").glob("*.json"))) == 1


# ------------------------------------------------------------ a new address tells nothing


def test_a_new_address_answers_the_same_whether_or_not_it_is_taken(client, env):
    new_games.create_game(
        env,
        (
            new_games.PlayerIn("Owner", "taken@example.test"),
            new_games.PlayerIn("O", "o@example.test"),
        ),
    )
    sign_in(client, env, "taken@example.test")  # the address now has an account
    requester = "mover@example.test"
    answers = []
    for new in ("taken@example.test", "free@example.test"):
        other = client.application.test_client()
        sign_in(other, env, requester)
        page = other.get("/me")
        answer = other.post(
            "/me/email",
            data={"csrf_token": csrf_of(page.text), "email": new},
            environ_base=fresh_ip(),
        )
        answers.append((answer.status_code, answer.headers.get("Location")))
        requester = "mover2@example.test"
    assert answers[0] == answers[1] == (303, "/me?done=email")
    with env.db.read() as session:
        rows = {
            m.to_addr: m
            for m in session.scalars(
                select(OutboxMessage).where(
                    OutboxMessage.kind.in_(("change_email", "address_taken"))
                )
            )
        }
    assert rows["free@example.test"].kind == "change_email"
    taken = rows["taken@example.test"]
    assert taken.kind == "address_taken"
    assert "already has an account" in taken.text_body and "/signin" in taken.text_body
    assert "erase" in taken.text_body
