"""``Cache-Control: no-store`` on every answer that a shared cache or the browser's history
must not keep (issue 31): a signed-in person's pages, and every answer whose address or
text carries a seat or sign-in link.

The walk takes the routes from the app's URL map, so a route added later is walked
too, and fails until the walk knows how to fill in its arguments.
"""

from __future__ import annotations

import io
import json
import re

import pytest
from sqlalchemy import select

from pbem.services.core import access
from pbem.services.play import game_pages, moves
from pbem.services.records import game_records
from pbem.store.models import OutboxMessage
from tests.helpers import csrf_of
from tests.mail.play import new_game, token
from tests.web.test_players import SIGN_IN, fresh_ip, sign_in, sign_in_mail

#: Files anyone may keep: the same bytes for every visitor, never a link or a name.
PUBLIC_FILES = {"static", "favicon"}


def no_store(response) -> bool:
    return "no-store" in response.headers.get("Cache-Control", "")


@pytest.fixture
def world(app, client, env):
    """A finished game and a running one (Ada's), an uploaded record, a sign-in link."""
    done = new_game(env)
    moves.resign(env, token(env, done, 0), 1, access.Client())
    running = new_game(env)
    csrf = csrf_of(client.get("/").text)
    record = json.dumps(game_records.operator_record(env, done)).encode()
    upload = client.post(
        "/records",
        data={"record": (io.BytesIO(record), "game.json"), "csrf_token": csrf},
        content_type="multipart/form-data",
    )
    digest = upload.headers["Location"].rsplit("/", 1)[-1]
    client.post(
        "/signin",
        data={"csrf_token": csrf, "email": "carol@example.test"},
        environ_base=fresh_ip(),
    )
    link = SIGN_IN.search(sign_in_mail(env, "carol@example.test")[-1].text_body).group(1)
    with env.db.read() as session:
        message_id = session.scalars(select(OutboxMessage.id)).first()
    seat_tokens = [*game_pages.seat_tokens(env, done), *game_pages.seat_tokens(env, running)]
    return {
        "values": {
            "public_id": done,
            "game": done,  # a bot's routes (docs/bots.md)
            "token": seat_tokens[0],
            "digest": digest,
            "n": 1,
            "message_id": message_id,
            "name": "pbem-0-py3-none-any.whl",
        },
        "signin_token": link.rsplit("/", 1)[-1],
        "secrets": [*seat_tokens, link.rsplit("/", 1)[-1]],
    }


def get_routes(app, world) -> list[tuple[str, str]]:
    """Every GET route of the app, with real arguments: (endpoint, path)."""
    values = world["values"]
    paths = []
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint == "static":
            continue
        args = {name: values[name] for name in rule.arguments}
        if rule.endpoint == "players.signin_link":
            args["token"] = world["signin_token"]
        paths.append((rule.endpoint, rule.build(args)[1]))
    return paths


def test_every_answer_carrying_a_link_is_not_stored(app, client, world):
    """Walked as a visitor: an answer whose address, text or redirect holds a seat or a
    sign-in token is ``no-store``."""
    private = 0
    for endpoint, path in get_routes(app, world):
        for query in ({}, {"n": "1", "as": "0"}):
            answer = client.get(path, query_string=query)
            seen = path + answer.get_data().decode("utf-8", "replace")
            seen += answer.headers.get("Location", "")
            if any(secret in seen for secret in world["secrets"]):
                private += 1
                assert no_store(answer), (endpoint, path, answer.status_code)
    assert private >= 8  # the seat page, its replay, audit and export, the sign-in link…


def test_a_signed_in_persons_every_page_is_not_stored(app, client, env, world):
    """Walked signed in: every answer but the site's public files is ``no-store``, since
    each page's header names the person, and "my games" lists their seat links."""
    sign_in(client, env, "ada@example.test")
    me = client.get("/me")
    assert re.search(r'href="[^"]*/s/[^"]+"', me.text)  # "my games" lists the seat links
    walked = 0
    for endpoint, path in get_routes(app, world):
        answer = client.get(path)
        if endpoint in PUBLIC_FILES:
            assert not no_store(answer), endpoint  # the icon and the styles stay cacheable
            continue
        walked += 1
        assert no_store(answer), (endpoint, path, answer.status_code)
    assert walked >= 25
    refused = client.post("/me/settings", data={"csrf_token": csrf_of(me.text), "name": ""})
    assert refused.status_code == 400 and "/s/" in refused.text and no_store(refused)


def test_an_anonymous_public_page_may_be_kept(client, world):
    """Pages with nothing private stay cacheable for a visitor (no ``no-store`` for all)."""
    for path in ("/", f"/g/{world['values']['public_id']}", "/ratings"):
        assert not no_store(client.get(path)), path
