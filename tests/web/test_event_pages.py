"""The events' pages and API: list, create, join, withdraw, the event page in every
language, "my games" grouping an event's games, the record download."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from pbem import events as core
from pbem.i18n import LANGUAGES
from pbem.store.models import Player
from tests.events.services_play import finish_round, new_event, running_games
from tests.helpers import csrf_of
from tests.web.test_players import sign_in


def _pid(env, email):
    with env.db.read() as session:
        return session.scalars(select(Player.id).where(Player.email == email)).one()


def test_a_signed_in_player_creates_an_event_and_others_join_until_it_starts(app, env):
    organiser, other = app.test_client(), app.test_client()
    sign_in(organiser, env, "org@example.test")
    sign_in(other, env, "joiner@example.test")
    form = organiser.get("/events/new")
    assert form.status_code == 200
    made = organiser.post(
        "/events",
        data={
            "csrf_token": csrf_of(form.text),
            "name": "Winter Cup & co",
            "format": "swiss",
            "rounds": "2",
            "max_players": "2",
            "days_per_move": "3",
            "start_mode": "full",
            "access": "open",
        },
    )
    assert made.status_code == 303
    url = made.headers["Location"]
    page = other.get(url)
    assert "Winter Cup &amp; co" in page.text
    assert "Join the event" in page.text
    joined = other.post(f"{url}/join", data={"csrf_token": csrf_of(page.text)})
    assert joined.status_code == 303
    page = organiser.get(url)
    joined = organiser.post(f"{url}/join", data={"csrf_token": csrf_of(page.text)})
    page = organiser.get(url)  # full: it started, round 1 paired
    assert "Round 1" in page.text and "/g/" in page.text
    assert "/replay" not in page.text  # a running game's replay: once it is over
    assert "Withdraw" in page.text
    me = organiser.get("/me").text
    assert "Winter Cup &amp; co" in me and "round 1" in me
    listed = organiser.get("/events").text
    assert "Winter Cup &amp; co" in listed


def test_creating_an_event_needs_a_sign_in_and_checks_the_form(app, env):
    client = app.test_client()
    assert client.get("/events/new").status_code == 403
    sign_in(client, env, "checker@example.test")
    form = client.get("/events/new")
    bad = client.post(
        "/events",
        data={"csrf_token": csrf_of(form.text), "name": "X", "format": "poker", "max_players": "4"},
    )
    assert bad.status_code == 400 and 'role="alert"' in bad.text
    hostile = client.post(
        "/events",
        data={
            "csrf_token": csrf_of(form.text),
            "name": "<script>",
            "format": "swiss",
            "rounds": "2",
            "max_players": "4",
        },
    )
    assert hostile.status_code == 400 and "<script>" not in hostile.text


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_event_pages_speak_every_language(app, env, language):
    public_id, _ = new_event(env, f"lang{language}", 3, format="round-robin")
    client = app.test_client()
    for path in (f"/events/{public_id}", "/events"):
        page = client.get(f"{path}?lang={language}")
        assert page.status_code == 200
        assert f'<html lang="{language}"' in page.text
    if language == "fa":
        assert 'dir="rtl"' in page.text


def test_the_page_links_each_game_and_its_replay_and_shows_the_seed_at_the_end(app, env):
    public_id, _ = new_event(env, "links", 2, format="swiss", rounds=1)
    ((game, _),) = running_games(env, public_id)
    client = app.test_client()
    page = client.get(f"/events/{public_id}").text
    assert f"/g/{game.public_id}" in page
    assert f"/g/{game.public_id}/replay" not in page  # the players' while it runs
    back = client.get(f"/g/{game.public_id}").text  # the game's page links its event
    assert f'href="/events/{public_id}"' in back and "links cup" in back
    assert "The seed is shown when the event is over." in page
    finish_round(env, public_id)
    page = client.get(f"/events/{public_id}").text
    with env.db.read() as session:
        from pbem.store.models import Event

        seed = session.scalars(select(Event.seed).where(Event.public_id == public_id)).one()
    assert seed in page
    assert f"/g/{game.public_id}/replay" in page  # over: anyone may replay it
    assert client.get(f"/g/{game.public_id}/replay").status_code == 200
    download = client.get(f"/events/{public_id}/event.json")
    assert download.status_code == 200
    assert json.loads(download.text)["format"] == core.EVENT_FORMAT


def test_the_api_lists_creates_joins_withdraws_and_reads_standings(app, env):
    client = app.test_client()
    sign_in(client, env, "api-org@example.test")
    refused = client.post("/api/events", data="name=x")
    assert refused.status_code == 400  # JSON only
    made = client.post(
        "/api/events",
        json={"name": "API open", "format": "round-robin", "max_players": 3},
    )
    assert made.status_code == 201
    event_id = made.json["id"]
    assert len(made.json["commitment"]) == 64 and made.json["invitation"] is None
    assert any(e["id"] == event_id for e in client.get("/api/events").json["events"])
    joined = client.post(f"/api/events/{event_id}/join", json={})
    assert joined.json == {"joined": True, "started": False}
    assert client.post(f"/api/events/{event_id}/join", json={}).status_code == 409
    read = client.get(f"/api/events/{event_id}").json
    assert read["state"] == "open" and read["players"] == 1 and read["seed"] is None
    assert client.post(f"/api/events/{event_id}/withdraw", json={}).json == {"withdrawn": True}
    assert client.get(f"/api/events/{event_id}").json["players"] == 0
    anonymous = app.test_client()
    assert anonymous.post(f"/api/events/{event_id}/join", json={}).status_code == 403


def test_the_api_standings_of_a_running_event(app, env):
    public_id, _ = new_event(env, "apistand", 4, format="swiss", rounds=2)
    finish_round(env, public_id)
    read = app.test_client().get(f"/api/events/{public_id}").json
    assert read["state"] == "running"
    assert [r["points"] for r in read["standings"]] == [1, 1, 0, 0]
    assert set(read["standings"][0]["tiebreaks"]) == {
        "buchholz",
        "median_buchholz",
        "seals",
        "round_points",
    }
    assert len(read["rounds"]) == 2


def test_the_organiser_enters_the_computer_from_the_page(app, env):
    client = app.test_client()
    sign_in(client, env, "comp-org@example.test")
    form = client.get("/events/new")
    made = client.post(
        "/events",
        data={
            "csrf_token": csrf_of(form.text),
            "name": "With the computer",
            "format": "round-robin",
            "max_players": "3",
        },
    )
    page = client.get(made.headers["Location"])
    assert "Normal: a fair challenge" in page.text  # the levels in the reader's words
    entered = client.post(
        made.headers["Location"] + "/computer",
        data={"csrf_token": csrf_of(page.text), "level": "strong"},
    )
    assert entered.status_code == 303
    page = client.get(made.headers["Location"]).text
    assert "Enter the computer" not in page  # once per event
    assert "Computer (strong)" in page


def test_the_api_refuses_unknown_and_ill_typed_fields_all_at_once(app, env):
    client = app.test_client()
    sign_in(client, env, "api-strict@example.test")
    bad = client.post(
        "/api/events",
        json={"name": "Strict", "max_players": 3.5, "rated": "yes", "colour": "red"},
    )
    assert bad.status_code == 400
    assert bad.json["fields"] == {
        "max_players": "must be a whole number",
        "rated": "must be true or false",
        "colour": "unknown field",
    }
    assert "colour" in bad.json["error"] and "max_players" in bad.json["error"]
    past = client.post(
        "/api/events", json={"name": "Past", "start": "date", "starts_at": "yesterday"}
    )
    assert past.status_code == 400 and "future" in past.json["error"]
    names = [e["name"] for e in client.get("/api/events").json["events"]]
    assert "Strict" not in names and "Past" not in names  # nothing stored
    listed = client.post("/api/events", json=["name", "x"])
    assert listed.status_code == 400 and '"move"' not in listed.json["error"]
    assert '"name"' in listed.json["error"]
    made = client.post("/api/events", json={"name": "Swiss by default", "max_players": 6})
    assert made.status_code == 201  # Swiss, its rounds by default: ceil(log2 6) = 3
    event_id = made.json["id"]
    assert client.post(f"/api/events/{event_id}/join", json={"key": 5}).json["fields"] == {
        "key": "must be a string"
    }
    assert client.post(f"/api/events/{event_id}/join", json={}).status_code == 200
    other = client.post(f"/api/events/{event_id}/withdraw", json={"entrant": "org"})
    assert other.status_code == 400 and other.json["fields"] == {"entrant": "unknown field"}
    assert client.get(f"/api/events/{event_id}").json["players"] == 1  # still in


def test_a_swiss_event_without_rounds_gets_the_documented_default():
    from pbem.services.events import lifecycle

    assert [lifecycle.default_rounds(n) for n in (2, 3, 4, 5, 8, 9, 64)] == [1, 2, 2, 3, 3, 4, 6]


def test_the_create_form_signed_out_says_to_sign_in(app):
    page = app.test_client().get("/events/new")
    assert page.status_code == 403
    assert "does not open a game" not in page.text
    assert 'href="/signin"' in page.text and "to create or join an event" in page.text


def test_the_organiser_joins_their_own_invitation_only_event(app, env):
    client = app.test_client()
    sign_in(client, env, "inv-org@example.test")
    made = client.post("/api/events", json={"name": "Private", "access": "invitation"})
    event_id = made.json["id"]
    page = client.get(f"/events/{event_id}")
    assert "Join the event" in page.text  # no key needed: it is theirs
    assert client.post(f"/api/events/{event_id}/join", json={}).status_code == 200
    stranger = app.test_client()
    sign_in(stranger, env, "inv-stranger@example.test")
    assert stranger.post(f"/api/events/{event_id}/join", json={}).status_code == 403


def test_an_event_game_over_links_its_event_on_the_seat_page_and_offers_no_rematch(app, env):
    public_id, _ = new_event(env, "norematch", 2, format="swiss", rounds=1)
    ((game, _),) = running_games(env, public_id)
    token = env.links.seat_token(game.public_id, 0, 1)
    finish_round(env, public_id)
    page = app.test_client().get(f"/s/{token}").text
    assert f'href="/events/{public_id}' in page and "norematch cup" in page
    assert "Rematch" not in page


@pytest.mark.parametrize(
    ("language", "word"),
    [("el", "Υπολογιστής"), ("fa", "رایانه"), ("uk", "Комп’ютер"), ("zh", "电脑")],
)
def test_the_computer_is_named_in_the_reader_language(app, env, language, word):
    public_id, _ = new_event(env, f"cname{language}", 1, computer="normal", format="swiss")
    page = app.test_client().get(f"/events/{public_id}?lang={language}").text
    assert word in page and "Computer (normal)" not in page


def test_the_organiser_starts_the_event_early_from_the_page(app, env):
    organiser, other = app.test_client(), app.test_client()
    sign_in(organiser, env, "early-org@example.test")
    sign_in(other, env, "early-joiner@example.test")
    made = organiser.post(
        "/api/events",
        json={"name": "Early", "format": "round-robin", "max_players": 6},
    )
    url = f"/events/{made.json['id']}"
    organiser.post(f"/api/events/{made.json['id']}/join", json={})
    page = organiser.get(url).text
    assert "Start the event now" not in page  # one player: nothing to start
    assert "Cancel the event" in page
    other.post(f"/api/events/{made.json['id']}/join", json={})
    assert "Start the event now" not in other.get(url).text  # only the organiser's
    page = organiser.get(url).text
    assert "Start the event now" in page
    started = organiser.post(f"{url}/start", data={"csrf_token": csrf_of(page)})
    assert started.status_code == 303
    page = organiser.get(url).text
    assert "Round 1" in page and "Start the event now" not in page
    assert "Cancel the event" not in page
    forged = other.post(f"{url}/start", data={})  # no CSRF token
    assert forged.status_code in (400, 403)


def test_the_start_button_warns_when_a_swiss_is_too_long_for_its_players(app, env):
    organiser, other = app.test_client(), app.test_client()
    sign_in(organiser, env, "long-swiss@example.test")
    sign_in(other, env, "long-swiss-2@example.test")
    made = organiser.post(
        "/api/events", json={"name": "Long", "format": "swiss", "max_players": 8, "rounds": 3}
    )
    event_id = made.json["id"]
    for client in (organiser, other):
        client.post(f"/api/events/{event_id}/join", json={})
    page = organiser.get(f"/events/{event_id}").text
    assert "With 2 players so far, a Swiss of 3 rounds pairs some of them twice." in page
    for n in (3, 4):
        joiner = app.test_client()
        sign_in(joiner, env, f"long-swiss-{n}@example.test")
        joiner.post(f"/api/events/{event_id}/join", json={})
    page = organiser.get(f"/events/{event_id}").text  # 4 players: 3 rounds, no rematch
    assert "Start the event now" in page and "pairs some of them twice" not in page


def test_the_organiser_cancels_the_event_from_the_page_after_confirming(app, env):
    organiser, other = app.test_client(), app.test_client()
    sign_in(organiser, env, "cancel-org@example.test")
    sign_in(other, env, "cancel-joiner@example.test")
    made = organiser.post("/api/events", json={"name": "Off", "format": "swiss", "max_players": 6})
    event_id = made.json["id"]
    other.post(f"/api/events/{event_id}/join", json={})
    url = f"/events/{event_id}"
    page = organiser.get(url).text
    unconfirmed = organiser.post(f"{url}/cancel", data={"csrf_token": csrf_of(page)})
    assert unconfirmed.status_code == 400 and "Tick the box" in unconfirmed.text
    assert organiser.get(f"/api/events/{event_id}").json["state"] == "open"
    other_token = csrf_of(other.get(url).text)
    for form in ({"csrf_token": other_token, "confirm": "yes"}, {"csrf_token": other_token}):
        refused = other.post(f"{url}/cancel", data=form)  # who may, then the box
        assert refused.status_code == 403 and "can cancel it" in refused.text
        assert "Not allowed" in refused.text and "does not open a game" not in refused.text
    done = organiser.post(f"{url}/cancel", data={"csrf_token": csrf_of(page), "confirm": "yes"})
    assert done.status_code == 303
    page = other.get(url).text
    assert "This event was cancelled by its organiser before it started." in page
    read = other.get(f"/api/events/{event_id}").json
    assert read["state"] == "cancelled" and read["cancelled_by"] == "organiser"
    assert read["seed"] is not None


def test_the_api_starts_and_cancels_for_the_organiser_only(app, env):
    organiser, other = app.test_client(), app.test_client()
    sign_in(organiser, env, "api-early@example.test")
    sign_in(other, env, "api-early-2@example.test")
    first = organiser.post("/api/events", json={"name": "A", "format": "swiss", "max_players": 6})
    second = organiser.post("/api/events", json={"name": "B", "format": "swiss", "max_players": 6})
    a, b = first.json["id"], second.json["id"]
    for event_id in (a, b):
        organiser.post(f"/api/events/{event_id}/join", json={})
        other.post(f"/api/events/{event_id}/join", json={})
    assert organiser.get(f"/api/events/{a}").json["cancelled_by"] is None
    assert other.post(f"/api/events/{a}/start", json={}).status_code == 403
    assert other.post(f"/api/events/{a}/cancel", json={}).status_code == 403
    assert organiser.post(f"/api/events/{a}/start", data="x").status_code == 400  # JSON only
    assert organiser.post(f"/api/events/{a}/start", json={"now": 1}).status_code == 400
    assert organiser.post(f"/api/events/{a}/start", json={}).json == {"started": True, "round": 1}
    assert organiser.post(f"/api/events/{a}/cancel", json={}).status_code == 409
    assert organiser.post(f"/api/events/{b}/cancel", json={}).json == {"cancelled": True}
    assert organiser.post(f"/api/events/{b}/start", json={}).status_code == 409
    assert organiser.get(f"/api/events/{b}").json["cancelled_by"] == "organiser"
