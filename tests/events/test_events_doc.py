"""docs/events.md, sentence by sentence: what it promises that the runs in
``test_event_runs.py`` and the pages' tests do not check already."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem import events as core
from pbem.config import Intervals
from pbem.services.core.errors import WrongState
from pbem.services.events import draw, entries, lifecycle, pages
from pbem.services.play import computer, new_games
from pbem.store.models import Event, EventPairing, Game, MoveRow

from .services_play import finish_round, new_event, players, running_games

DOC = (Path(__file__).parents[2] / "docs" / "events.md").read_text()


def test_the_formats_and_their_rounds_are_the_cores():
    for value in draw.FORMATS:
        assert f"`{value}`" in DOC
    rules = {f: core.EventRules(core.Format(f), 3 if f == "swiss" else None) for f in draw.FORMATS}
    assert core.round_count(rules["round-robin"], 6) == 5
    assert core.round_count(rules["round-robin"], 5) == 5
    assert core.round_count(rules["double-round-robin"], 6) == 10
    assert core.round_count(rules["swiss"], 9) == 3
    assert core.round_count(rules["elimination"], 5) == 3
    assert lifecycle.MAX_SWISS_ROUNDS == 20 and "1 to 20" in DOC


def test_the_tie_breaks_are_said_in_the_order_they_count():
    words = {
        "sonneborn_berger": "Sonneborn–Berger",
        "head_to_head": "head-to-head",
        "buchholz": "Buchholz",
        "median_buchholz": "median Buchholz",
        "rounds_won": "rounds won",
        "seals": "seals",
        "round_points": "round points",
    }
    for fmt, label in (
        ("round-robin", "round robin"),
        ("swiss", "Swiss"),
        ("elimination", "elimination"),
    ):
        said = ", ".join(words[k] for k in draw.TIEBREAK_KEYS[fmt])
        assert f"- {label}: {said};" in DOC or f"- {label}: {said}." in DOC


def test_the_events_job_runs_every_minute_by_default():
    assert Intervals().events == 60 and "every 60" in DOC and "PBEM_EVENTS_EVERY" in DOC


def test_the_computer_is_entered_once_and_plays_without_a_deadline(env):
    ids = players(env, "once", 1)
    made = lifecycle.create(
        env, ids[0], lifecycle.EventSpec(name="Once", format="round-robin", max_players=3)
    )
    entries.enter_computer(env, made.public_id, ids[0], "easy")
    with pytest.raises(WrongState):
        entries.enter_computer(env, made.public_id, ids[0], "strong")
    public_id, _ = new_event(env, "nodead", 1, computer="easy", format="swiss", rounds=1)
    ((game, _),) = running_games(env, public_id)
    assert game.days_per_move is None


def test_the_computer_in_seat_0_moves_first(env):
    made = new_games.create_game(
        env,
        (
            new_games.PlayerIn(computer.name("easy"), computer.ADDRESS),
            new_games.PlayerIn("Person", "person-seat1@example.test"),
        ),
        first_player=0,
        clock=computer.CLOCK,
        bot="easy",
        bot_seat=0,
        invite=False,
    )
    computer.computer_moves(env, recent=None)
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == made.public_id)).one()
        assert game.seats[0].bot == "easy" and game.seats[1].bot is None
        first = session.scalars(select(MoveRow).where(MoveRow.game_id == game.id)).first()
    assert first is not None and first.seat == 0 and first.source == "bot"


def test_a_withdrawal_before_the_start_frees_the_place(env):
    ids = players(env, "free", 3)
    made = lifecycle.create(
        env, ids[0], lifecycle.EventSpec(name="Free", format="round-robin", max_players=2)
    )
    entries.join(env, made.public_id, ids[1])
    entries.withdraw(env, made.public_id, ids[1])
    assert pages.event_page(env, made.public_id).summary.players == 0
    entries.join(env, made.public_id, ids[2])
    assert entries.join(env, made.public_id, ids[1])  # back, and it is full: it starts
    assert len(pages.event_page(env, made.public_id).standings) == 2


def test_a_swiss_player_who_withdrew_is_not_paired_again(env):
    public_id, ids = new_event(env, "swissleave", 4, format="swiss", rounds=3)
    entries.withdraw(env, public_id, ids[0])
    finish_round(env, public_id)
    finish_round(env, public_id)
    with env.db.read() as session:
        event = session.scalars(select(Event).where(Event.public_id == public_id)).one()
        gone = next(e.id for e in event.entrants if e.player_id == ids[0])
        later = session.scalars(
            select(EventPairing).where(EventPairing.event_id == event.id, EventPairing.round > 1)
        ).all()
    assert later and all(gone not in (p.first_id, p.second_id) for p in later)


def test_tied_players_share_a_rank_in_joining_order_while_it_runs(env):
    public_id, _ = new_event(env, "tied", 4, format="round-robin")
    page = pages.event_page(env, public_id)
    assert [r.rank for r in page.standings] == [1, 1, 1, 1]
    assert [r.name for r in page.standings] == [f"Tied {i}" for i in range(1, 5)]


def test_an_invitation_event_is_not_listed_and_its_link_is_shown_to_the_organiser(app, env):
    from tests.helpers import csrf_of
    from tests.web.test_players import sign_in

    client = app.test_client()
    sign_in(client, env, "inviter@example.test")
    form = client.get("/events/new")
    made = client.post(
        "/events",
        data={
            "csrf_token": csrf_of(form.text),
            "name": "Secret club",
            "format": "round-robin",
            "max_players": "4",
            "access": "invitation",
        },
    )
    assert made.status_code == 303 and "/invited/" in made.headers["Location"]
    answer = client.get(made.headers["Location"])
    assert answer.headers["Cache-Control"] == "no-store"
    page = answer.text
    assert "Share this link" in page and re.search(r"/invited/[\w-]+", page)
    assert "Secret club" not in client.get("/events").text
    public_id = made.headers["Location"].split("/events/")[1].split("/")[0]
    assert "Share this link" not in client.get(f"/events/{public_id}").text


def test_an_unrated_events_games_never_count_in_the_ratings(env):
    from pbem.services.play import ratings
    from pbem.store.models import Player

    public_id, ids = new_event(env, "unrated", 2, format="swiss", rounds=1, rated=False)
    finish_round(env, public_id)
    ratings.rebuild(env)
    with env.db.read() as session:
        assert [session.get(Player, i).rated_games for i in ids] == [0, 0]
    rated_id, rated_ids = new_event(env, "ratedev", 2, format="swiss", rounds=1)
    finish_round(env, rated_id)
    with env.db.read() as session:
        assert [session.get(Player, i).rated_games for i in rated_ids] == [1, 1]


def test_a_player_joins_an_invitation_event_from_its_link(app, env):
    from tests.helpers import csrf_of
    from tests.web.test_players import sign_in

    ids = players(env, "linkorg", 1)
    made = lifecycle.create(
        env,
        ids[0],
        lifecycle.EventSpec(
            name="By link", format="round-robin", max_players=4, access="invitation"
        ),
    )
    guest = app.test_client()
    sign_in(guest, env, "guest@example.test")
    assert "Join the event" not in guest.get(f"/events/{made.public_id}").text
    page = guest.get(f"/events/{made.public_id}/invited/{made.invitation}")
    assert "Join the event" in page.text
    refused = guest.post(f"/events/{made.public_id}/join", data={"csrf_token": csrf_of(page.text)})
    assert refused.status_code == 403  # a join without the key is refused
    joined = guest.post(
        f"/events/{made.public_id}/join",
        data={"csrf_token": csrf_of(page.text), "key": made.invitation},
    )
    assert joined.status_code == 303
    assert pages.event_page(env, made.public_id).summary.players == 1
