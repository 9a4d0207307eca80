"""Every hidden field, choice and radio button of the site's forms is bounded on the server
(issue 31): a value the form never offers, sent by hand, is refused with a message that
says what is allowed, and nothing changes.

Each bound is the service's (``services/play/game_clock.py`` ``CLOCK_LIMITS`` for a game's clock,
the settings' own choices for the rest); the web layer reads it from there.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from sqlalchemy import func, select

from pbem.services.core.errors import InvalidInput
from pbem.services.play import game_clock, game_pages, new_games
from pbem.store.models import Challenge, Game
from tests.helpers import csrf_of
from tests.mail.play import new_game, token
from tests.web.test_players import sign_in

#: The home page's form as a browser sends it.
HOME = {
    "my_name": "Ada",
    "my_email": "ada@example.test",
    "their_name": "Bo",
    "their_email": "bo@example.test",
    "days_per_move": "3",
    "timeout_action": "claim",
    "reminder_after_hours": "24",
    "vacation_days": "10",
}


def counted(env, table) -> int:
    with env.db.read() as session:
        return session.scalar(select(func.count()).select_from(table))


def every_form_field() -> set[str]:
    """The names of every hidden field, choice and radio button in the site's templates."""
    from pbem.resources import resource_dir

    names = set()
    for page in (resource_dir("templates") / "web").glob("*.html"):
        text = page.read_text()
        for tag in re.findall(r"<(?:input|select)\b[^>]*>", text):
            kind = re.search(r'type="(\w+)"', tag)
            if tag.startswith("<select") or (kind and kind.group(1) in ("hidden", "radio")):
                name = re.search(r'name="([^"{]+)"', tag)
                if name:
                    names.add(name.group(1))
    return names


#: Each such field: where it is posted, a value no form offers, what the refusal says.
#: (``csrf_token`` is checked by ``csrf.py``, ``entropy`` by ``new_games.contribution_from``,
#: ``n`` by the move's own check, ``move`` and ``message`` are what a player types, ``try``
#: is a what-if step's move, ``per`` the dev inbox's page size, ``key`` an invitation
#: event's key, refused by ``services/events/entries.join``: tests/events/test_events_doc.py.)
OFFERED_ELSEWHERE = {"csrf_token", "entropy", "n", "move", "message", "try", "per", "key"}


def test_every_hidden_or_chosen_field_is_walked_here():
    walked = {field for _form, field, _bad, _says in HOME_CASES}
    walked |= {field for _path, field, _bad, _says in SIGNED_IN_CASES + SEAT_CASES}
    assert every_form_field() - OFFERED_ELSEWHERE <= walked


HOME_CASES = [
    ("/", "reminder_every_hours", "1", "Reminders: a number from 24 to 720"),
    ("/", "reminder_every_hours", "721", "Reminders: a number from 24 to 720"),
    ("/", "reminder_after_hours", "1", "First reminder after: a number from 12 to 720"),
    ("/", "days_per_move", "61", "Time per move: a number from 1 to 60"),
    ("/", "vacation_days", "61", "Vacation days per player: a number from 0 to 60"),
    ("/", "timeout_action", "never", "after a timeout: the waiting player may claim"),
    ("/", "my_language", "xx", "Choose one of the languages offered"),
    ("/", "their_language", "xx", "Choose one of the languages offered"),
    ("/", "my_timezone", "Mars/Olympus", "'Mars/Olympus' is not a time zone"),
    ("/computer", "level", "grandmaster", "Choose the computer's level"),
    ("/computer", "my_language", "xx", "Choose one of the languages offered"),
]


@pytest.mark.parametrize(("path", "field", "bad", "says"), HOME_CASES)
def test_the_home_forms_refuse_what_they_never_offer(client, env, path, field, bad, says):
    before = counted(env, Game)
    form = HOME | {"csrf_token": csrf_of(client.get("/").text), field: bad}
    answer = client.post(path, data=form)
    assert answer.status_code == 400 and says in unescape(answer.text), answer.text[-2000:]
    assert counted(env, Game) == before


def test_the_home_form_sends_no_hidden_clock_value(client):
    """The reminders' interval is the service's default: the page restates no number of it."""
    page = client.get("/").text
    assert 'name="reminder_every_hours"' not in page


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("reminder_every_hours", 1),
        ("reminder_every_hours", 23),
        ("reminder_after_hours", 11),
        ("days_per_move", 0),
        ("vacation_days", -1),
    ],
)
def test_the_clock_service_refuses_hourly_reminders_and_the_like(field, value):
    with pytest.raises(InvalidInput):
        game_clock.GameClock(**{field: value}).check()
    limit = game_clock.CLOCK_LIMITS[field]
    game_clock.GameClock(**{field: limit.low}).check()
    game_clock.GameClock(**{field: limit.high}).check()


SIGNED_IN_CASES = [
    ("/challenges", "days_per_move", "61", "Time per move: a number from 1 to 60"),
    ("/challenges", "starter", "nobody", "Who starts"),
    ("/me/settings", "mail_mode", "hourly", "Choose how you want mail"),
    ("/me/settings", "language", "xx", "Choose one of the languages offered"),
    ("/me/settings", "timezone", "Mars/Olympus", "is not a time zone"),
    ("/me/receipts", "receipts", "sometimes", "receipt"),
    ("/me/computer", "level", "grandmaster", "Choose the computer's level"),
    ("/events", "format", "poker", "Choose a format"),
    ("/events", "access", "friends", "open to anyone with its link, or by invitation"),
    ("/events", "start_mode", "never", "starts when it is full, or at a date"),
]


@pytest.mark.parametrize(("path", "field", "bad", "says"), SIGNED_IN_CASES)
def test_a_players_forms_refuse_what_they_never_offer(client, env, path, field, bad, says):
    sign_in(client, env, "ada@example.test")
    before = (counted(env, Game), counted(env, Challenge))
    form = {
        "csrf_token": csrf_of(client.get("/me").text),
        "name": "Ada",
        "mail_mode": "each",
        "language": "en",
        "timezone": "UTC",
        "days_per_move": "3",
        "starter": "random",
        "rounds": "3",  # an event's form
        "max_players": "4",
        field: bad,
    }
    answer = client.post(path, data=form)
    assert answer.status_code == 400 and says in unescape(answer.text), answer.text[-2000:]
    assert (counted(env, Game), counted(env, Challenge)) == before


SEAT_CASES = [
    ("accept", "language", "xx", "choose one of the languages offered"),
    ("accept", "timezone", "Mars/Olympus", "is not a time zone"),
    ("mail", "mode", "hourly", "mail"),
    ("receipts", "receipts", "sometimes", "receipt"),
    ("reader", "language", "xx", "language"),
    ("away", "days", "1000", "away"),
]


@pytest.mark.parametrize(("action", "field", "bad", "says"), SEAT_CASES)
def test_a_seats_forms_refuse_what_they_never_offer(client, env, action, field, bad, says):
    waiting = action == "accept"  # a game started on the web waits for both to accept
    public_id = new_game(env) if not waiting else _waiting_game(env)
    link = f"/s/{token(env, public_id, 0)}"
    page = client.get(link)
    form = {
        "csrf_token": csrf_of(page.text),
        "language": "en",
        "timezone": "UTC",
        "phrase": "four words of mine",
        field: bad,
    }
    answer = client.post(f"{link}/{action}", data=form)
    assert answer.status_code == 400 and says in unescape(answer.text).lower(), answer.text[-900:]
    assert client.get(link).text.count("checked") == page.text.count("checked")
    if waiting:  # not accepted: the page still asks for it
        assert game_pages.public_page(env, public_id).game.status == "waiting"


def _waiting_game(env) -> str:
    return new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
        await_players=True,
    ).public_id
