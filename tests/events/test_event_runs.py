"""Whole events played to the end through the services, on the injected clock.

Games end by resignations and timeouts, to be fast; every game is an ordinary game
(its own log, mails and record). Each player gets one mail a round (the game's first
mail, naming the event, or a bye's), and every player the final standings at the end;
the event record the server exports verifies with ``pbem.events.verify_event``.
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from pbem import events as core
from pbem.engine.record import load_record
from pbem.services.core.errors import InvalidInput, NotAllowed, WrongState
from pbem.services.events import entries, lifecycle, pages, rounds
from pbem.services.records import game_records
from pbem.store.models import Event, EventPairing, Game, MoveRow, OutboxMessage
from tests.mail.test_every_mail_answerable import check_event_notice

from .services_play import event_mails, finish_round, new_event, running_games, state, time_out


def _record_checks(env, public_id: str) -> core.EventVerification:
    """The event record as a file carries it, checked with every game's record."""
    record = pages.record(env, public_id)
    data = json.loads(json.dumps(record))
    assert data["format"] == core.EVENT_FORMAT
    with env.db.read() as session:
        event = session.scalars(select(Event).where(Event.public_id == public_id)).one()
        ids = session.scalars(
            select(Game.public_id)
            .join(EventPairing, EventPairing.game_id == Game.id)
            .where(EventPairing.event_id == event.id)
        ).all()
    games = [
        load_record(json.dumps(game_records.export_record(env, game_id)).encode())
        for game_id in ids
    ]
    report = core.verify_event(data, games)
    assert report.ok, report.first_failure
    assert sum(c.name.startswith("game ") for c in report.checks) == len(ids)
    return report


def _round_mails(env, address: str) -> list[OutboxMessage]:
    return event_mails(env, address, ("invitation", "event_bye"))


def test_a_swiss_of_five_with_the_computer_runs_to_the_end(env):
    public_id, _ids = new_event(
        env, "swiss", 4, computer="easy", format="swiss", rounds=3, days_per_move=2
    )
    assert state(env, public_id) == "running"  # the fifth place filled: it started
    page = pages.event_page(env, public_id)
    assert page.seed is None and len(page.rounds) == 1
    byes = [b for b in page.rounds[0].boards if b.second is None]
    assert len(byes) == 1 and len(page.rounds[0].boards) == 3  # five players: one bye
    # a timeout in round 1: the waiting player's win is claimed by the events job
    games = running_games(env, public_id)
    person_games = [g for g, _ in games if all(s.bot is None for s in g.seats)]
    assert person_games
    time_out(env, person_games[0])
    rounds.advance(env)
    with env.db.read() as session:
        ended = session.get(Game, person_games[0].id)
        sources = [
            m.source for m in session.scalars(select(MoveRow).where(MoveRow.game_id == ended.id))
        ]
    assert ended.status == "finished" and sources == ["timeout", "event"]
    for _ in range(3):
        finish_round(env, public_id)
    assert state(env, public_id) == "finished"
    page = pages.event_page(env, public_id)
    assert len(page.rounds) == 3
    assert page.seed is not None and core.commit(bytes.fromhex(page.seed)) == page.commitment
    assert sum(r.points for r in page.standings) == 3 * 2 + 3  # two games and a bye a round
    for i in range(1, 5):
        address = f"swiss{i}@example.test"
        assert len(_round_mails(env, address)) == 3  # one a round: its game's, or its bye's
        [over] = event_mails(env, address, ("event_over",))
        check_event_notice(env, over)
        for bye in event_mails(env, address, ("event_bye",)):
            check_event_notice(env, bye)
        assert page.seed in over.text_body and page.standings[0].name in over.text_body
        assert page.seed in over.html_body and "swiss cup" in over.subject
    assert _record_checks(env, public_id).ok


def test_a_round_robin_of_four_has_a_crosstable_and_everyone_meets_everyone(env):
    public_id, _ids = new_event(env, "robin", 4, format="round-robin", days_per_move=3)
    for _ in range(3):
        finish_round(env, public_id, loser_seat=0)
    assert state(env, public_id) == "finished"
    with env.db.read() as session:
        event = session.scalars(select(Event).where(Event.public_id == public_id)).one()
        pairs = session.scalars(select(EventPairing).where(EventPairing.event_id == event.id))
        met = {frozenset((p.first_id, p.second_id)) for p in pairs}
    assert len(met) == 6  # each of the six pairs once
    page = pages.event_page(env, public_id)
    assert page.crosstable is not None and len(page.crosstable.names) == 4
    assert [t for t in page.tiebreaks][:2] == ["sonneborn_berger", "head_to_head"]
    assert _record_checks(env, public_id).ok


def test_an_elimination_of_four_ends_with_one_winner(env):
    public_id, _ids = new_event(env, "knock", 4, format="elimination", days_per_move=3)
    finish_round(env, public_id)
    page = pages.event_page(env, public_id)
    assert len(page.rounds) == 2 and len(page.rounds[1].boards) == 1  # the final
    finish_round(env, public_id)
    assert state(env, public_id) == "finished"
    page = pages.event_page(env, public_id)
    assert page.standings[0].rank == 1 and page.standings[0].wins == 2
    assert _record_checks(env, public_id).ok


def test_a_withdrawal_resigns_the_running_game_and_forfeits_the_later_ones(env):
    public_id, ids = new_event(env, "leave", 4, format="round-robin", days_per_move=3)
    leaving = ids[3]
    game_ids = [g.id for g, _ in running_games(env, public_id)]
    entries.withdraw(env, public_id, leaving)
    with env.db.read() as session:
        resigned = session.scalars(
            select(MoveRow).where(MoveRow.source == "event", MoveRow.game_id.in_(game_ids))
        ).all()
    assert len(resigned) == 1 and resigned[0].move == "resign"
    for _ in range(3):
        finish_round(env, public_id)
    assert state(env, public_id) == "finished"
    page = pages.event_page(env, public_id)
    gone = [r for r in page.standings if r.withdrawn]
    assert len(gone) == 1 and gone[0].points == 0 and gone[0].losses == 3
    forfeits = [b for r in page.rounds for b in r.boards if b.result and "forfeit" in b.result]
    assert len(forfeits) == 2 and all(b.game is None for b in forfeits)
    (final,) = event_mails(env, "leave1@example.test", ("event_over",))
    name = gone[0].name
    assert f"{name} (withdrawn):" in final.text_body  # the final standings mark who left
    assert f"{name} (withdrawn):" in final.html_body
    with pytest.raises(WrongState):
        entries.withdraw(env, public_id, ids[0])  # it is over
    assert _record_checks(env, public_id).ok


def test_an_invitation_event_takes_only_the_key_and_a_full_one_nobody_more(env):
    from .services_play import players

    ids = players(env, "invite", 3)
    created = lifecycle.create(
        env,
        ids[0],
        lifecycle.EventSpec(
            name="Friends", format="swiss", rounds=1, max_players=2, access="invitation"
        ),
    )
    assert created.invitation
    with pytest.raises(NotAllowed):
        entries.join(env, created.public_id, ids[1])
    with pytest.raises(NotAllowed):
        entries.join(env, created.public_id, ids[1], "wrong")
    assert not entries.join(env, created.public_id, ids[1], created.invitation)
    assert entries.join(env, created.public_id, ids[0], created.invitation)  # full: starts
    with pytest.raises(WrongState):
        entries.join(env, created.public_id, ids[2], created.invitation)
    assert all(e.public_id != created.public_id for e in pages.listing(env))  # not listed


def test_an_event_at_a_date_starts_from_the_job_or_is_cancelled_without_players(env):
    from datetime import timedelta

    from .services_play import players

    ids = players(env, "dated", 3)
    at = env.clock.now() + timedelta(days=2)
    spec = lifecycle.EventSpec(
        name="Dated", format="round-robin", max_players=8, start_mode="date", starts_at=at
    )
    created = lifecycle.create(env, ids[0], spec)
    lonely = lifecycle.create(env, ids[0], spec)
    for pid in ids:
        entries.join(env, created.public_id, pid)
    entries.join(env, lonely.public_id, ids[0])
    assert rounds.advance(env).started == 0
    env.clock.advance(days=2)
    rounds.advance(env)
    assert state(env, created.public_id) == "running"
    assert state(env, lonely.public_id) == "cancelled"
    # the one who joined is told, in their language; the seed is shown; joining refused
    (told,) = event_mails(env, "dated1@example.test", ("event_cancelled",))
    assert "was cancelled" in told.text_body and "Dated" in told.subject
    check_event_notice(env, told)
    assert pages.event_page(env, lonely.public_id).seed is not None
    assert pages.record(env, lonely.public_id)["seed"] is not None
    assert pages.event_page(env, lonely.public_id).cancelled_by == "too_few"
    assert pages.event_page(env, created.public_id).cancelled_by is None
    with pytest.raises(WrongState, match="cancelled"):
        entries.join(env, lonely.public_id, ids[1])


def _dated(env, prefix: str, joined: int):
    """An event that starts at a date in two days, its organiser and ``joined - 1`` others
    in it; its public id and the players' ids (the organiser first)."""
    from datetime import timedelta

    from .services_play import players

    ids = players(env, prefix, 4)
    spec = lifecycle.EventSpec(
        name=f"{prefix.title()} cup",
        format="round-robin",
        max_players=8,
        start_mode="date",
        starts_at=env.clock.now() + timedelta(days=2),
    )
    created = lifecycle.create(env, ids[0], spec)
    for pid in ids[:joined]:
        entries.join(env, created.public_id, pid)
    return created.public_id, ids


def test_the_organiser_starts_an_event_early_with_the_players_who_joined(env):
    public_id, ids = _dated(env, "early", 1)
    with pytest.raises(WrongState, match="two players at least"):  # never cancels it
        entries.start_now(env, public_id, ids[0])
    assert state(env, public_id) == "open"
    entries.join(env, public_id, ids[1])
    entries.join(env, public_id, ids[2])
    with pytest.raises(NotAllowed, match="organiser"):
        entries.start_now(env, public_id, ids[1])
    assert entries.start_now(env, public_id, ids[0]) == 1
    assert state(env, public_id) == "running"
    page = pages.event_page(env, public_id, ids[0])
    assert [e.name for e in page.entrants] == ["Early 1", "Early 2", "Early 3"]
    assert not page.can_start and not page.can_cancel and len(running_games(env, public_id)) == 1
    with pytest.raises(WrongState, match="started already"):
        entries.start_now(env, public_id, ids[0])
    with pytest.raises(WrongState, match="takes no new players"):
        entries.join(env, public_id, ids[3])
    with pytest.raises(WrongState, match="can no longer be cancelled"):
        entries.cancel(env, public_id, ids[0])


def test_the_organiser_cancels_an_event_before_it_starts_and_who_joined_is_told(env):
    public_id, ids = _dated(env, "calledoff", 3)
    page = pages.event_page(env, public_id, ids[0])
    assert page.can_start and page.can_cancel and page.seed is None
    assert not pages.event_page(env, public_id, ids[1]).can_cancel  # a player cannot
    with pytest.raises(NotAllowed, match="organiser"):
        entries.cancel(env, public_id, ids[1])
    entries.cancel(env, public_id, ids[0])
    assert state(env, public_id) == "cancelled"
    page = pages.event_page(env, public_id)
    assert page.cancelled_by == "organiser" and page.seed is not None  # nothing drawn from it
    assert page.crosstable is None  # a round robin that played nothing has none
    assert pages.record(env, public_id)["seed"] == page.seed  # as the page shows it
    assert _record_checks(env, public_id).ok
    for i in (1, 2, 3):
        (told,) = event_mails(env, f"calledoff{i}@example.test", ("event_cancelled",))
        assert "cancelled by its organiser before it started" in told.text_body
        check_event_notice(env, told)
    with pytest.raises(WrongState, match="cancelled"):
        entries.join(env, public_id, ids[3])
    with pytest.raises(WrongState, match="cancelled"):
        entries.start_now(env, public_id, ids[0])
    with pytest.raises(WrongState, match="cancelled"):
        entries.cancel(env, public_id, ids[0])
    with pytest.raises(WrongState, match="was cancelled"):  # not "over": it never ran
        entries.withdraw(env, public_id, ids[1])
    env.clock.advance(days=3)  # its date passes: the job leaves it cancelled
    assert rounds.advance(env).started == 0 and state(env, public_id) == "cancelled"
    assert len(event_mails(env, "calledoff1@example.test", ("event_cancelled",))) == 1


def _filled_while(env, monkeypatch, prefix: str, organiser_does):
    """The last join of a 3-player event, with the organiser's ``organiser_does(env,
    public_id, organiser)`` run between that join's commit and its start of the event;
    what the join returned, the public id and the players' ids."""
    from .services_play import players

    ids = players(env, prefix, 3)
    spec = lifecycle.EventSpec(name=f"{prefix.title()} cup", max_players=3)
    public_id = lifecycle.create(env, ids[0], spec).public_id
    entries.join(env, public_id, ids[0])
    entries.join(env, public_id, ids[1])
    real_start = rounds.start

    def organiser_first(env_, public_id_, *, by=None):
        if by is None:
            organiser_does(env_, public_id_, ids[0])
        return real_start(env_, public_id_, by=by)

    monkeypatch.setattr(rounds, "start", organiser_first)
    return entries.join(env, public_id, ids[2]), public_id, ids


def test_a_join_that_fills_the_event_as_its_organiser_starts_it_still_counts(env, monkeypatch):
    joined, public_id, _ids = _filled_while(env, monkeypatch, "racestart", entries.start_now)
    assert joined is True and state(env, public_id) == "running"
    page = pages.event_page(env, public_id)
    assert [e.name for e in page.entrants] == ["Racestart 1", "Racestart 2", "Racestart 3"]


def test_a_join_that_fills_the_event_as_its_organiser_cancels_it_is_told(env, monkeypatch):
    joined, public_id, _ids = _filled_while(env, monkeypatch, "racecancel", entries.cancel)
    assert joined is False and state(env, public_id) == "cancelled"
    (told,) = event_mails(env, "racecancel3@example.test", ("event_cancelled",))
    assert "cancelled by its organiser" in told.text_body


def test_only_the_organiser_hears_that_a_cancel_needs_confirming(env):
    public_id, ids = _dated(env, "confirmoff", 2)
    with pytest.raises(NotAllowed, match="organiser"):  # not "tick the box" to a stranger
        entries.cancel(env, public_id, ids[1], confirmed=False)
    with pytest.raises(InvalidInput, match="Tick the box"):
        entries.cancel(env, public_id, ids[0], confirmed=False)
    assert state(env, public_id) == "open"
    entries.start_now(env, public_id, ids[0])
    with pytest.raises(WrongState, match="can no longer be cancelled"):  # before the box
        entries.cancel(env, public_id, ids[0], confirmed=False)


def _refuse_games_of(monkeypatch, email: str):
    """Game creation refuses every game of ``email`` (as a stored row today's checks
    refuse); returns the real ``create_game``, to mend it."""
    from pbem.services.core.errors import InvalidInput
    from pbem.services.play import new_games

    real = new_games.create_game

    def refusing(env_, players, **kw):
        if any(p.email == email for p in players):
            raise InvalidInput(f"First player: '{email}' does not look like an email address")
        return real(env_, players, **kw)

    monkeypatch.setattr(new_games, "create_game", refusing)
    return real


def test_a_board_whose_game_cannot_be_made_stops_no_other_board(env, monkeypatch, caplog):
    """A stored row today's checks refuse (an address, say) leaves its board without a
    game, logged and tried again at each run; the other boards play, and the join that
    filled the event is no failure."""
    from pbem.services.play import new_games

    real = _refuse_games_of(monkeypatch, "badrow1@example.test")
    public_id, _ids = new_event(env, "badrow", 4, format="swiss", rounds=1)
    assert state(env, public_id) == "running"
    assert len(running_games(env, public_id)) == 1  # the other board plays
    assert "no game for pairing" in caplog.text
    monkeypatch.setattr(new_games, "create_game", real)  # the operator mends the row
    rounds.advance(env)
    assert len(running_games(env, public_id)) == 2


def test_an_erased_player_leaves_the_event_and_its_pages_lose_their_name(env):
    """Erasure (docs/deploy.md): the name becomes the label at once, in the page and the
    record; at the job's next run the player leaves as by withdrawing (their running game
    resigned, their later boards forfeited), and the event plays on to the end."""
    from pbem.services.accounts import erasure
    from pbem.services.core import access

    public_id, ids = new_event(env, "vanish", 4, format="round-robin")
    erasure.erase(env, ids[1], access.Client())
    page = pages.event_page(env, public_id)
    assert "Vanish 2" not in [e.name for e in page.entrants]
    assert "Vanish 2" not in json.dumps(pages.record(env, public_id))
    rounds.advance(env)
    page = pages.event_page(env, public_id)
    assert [e.withdrawn for e in page.entrants] == [False, True, False, False]
    assert len(running_games(env, public_id)) == 1  # theirs was resigned
    for _ in range(4):
        if state(env, public_id) == "finished":
            break
        finish_round(env, public_id)
    assert state(env, public_id) == "finished"
    assert _record_checks(env, public_id).ok


def test_an_account_erased_before_its_event_starts_is_not_in_it(env):
    from pbem.services.accounts import erasure
    from pbem.services.core import access

    from .services_play import players

    ids = players(env, "early-gone", 4)
    spec = lifecycle.EventSpec(name="Gone cup", format="round-robin", max_players=4)
    public_id = lifecycle.create(env, ids[0], spec).public_id
    for pid in ids[:3]:
        entries.join(env, public_id, pid)
    erasure.erase(env, ids[2], access.Client())
    entries.join(env, public_id, ids[3])  # fills it: it starts without the erased one
    assert state(env, public_id) == "running"
    page = pages.event_page(env, public_id)  # left before the start: not listed
    assert [e.name for e in page.entrants] == ["Early-Gone 1", "Early-Gone 2", "Early-Gone 4"]


def test_a_board_without_its_game_does_not_hold_the_others_timeouts(env, monkeypatch):
    _refuse_games_of(monkeypatch, "holdup1@example.test")
    public_id, _ids = new_event(env, "holdup", 4, format="swiss", rounds=2, days_per_move=2)
    ((game, _),) = running_games(env, public_id)
    time_out(env, game)
    assert rounds.advance(env).claimed >= 1  # the other board's timeout is claimed
    assert running_games(env, public_id) == [] and state(env, public_id) == "running"
    assert len(pages.event_page(env, public_id).rounds) == 1  # the round waits for its board


def test_a_player_who_withdraws_while_the_round_is_made_gets_no_game_to_win(env, monkeypatch):
    from pbem.services.play import new_games

    from .services_play import players

    ids = players(env, "midway", 4)
    spec = lifecycle.EventSpec(name="Midway cup", format="swiss", rounds=1, max_players=4)
    public_id = lifecycle.create(env, ids[0], spec).public_id
    for pid in ids[:3]:
        entries.join(env, public_id, pid)
    real, calls = new_games.create_game, []

    def withdrawing_meanwhile(env_, players_, **kw):
        calls.append(players_)
        if len(calls) == 1:  # a player of the other board leaves as this game is made
            mine = {p.email for p in players_}
            other = next(i for i in ids if f"midway{ids.index(i) + 1}@example.test" not in mine)
            entries.withdraw(env_, public_id, other)
        return real(env_, players_, **kw)

    monkeypatch.setattr(new_games, "create_game", withdrawing_meanwhile)
    entries.join(env, public_id, ids[3])  # fills and starts it
    assert len(calls) == 2 and len(running_games(env, public_id)) == 1
    page = pages.event_page(env, public_id)
    gone = next(e.name for e in page.entrants if e.withdrawn)
    row = next(r for r in page.standings if r.name == gone)
    assert row.points == 0  # their game was resigned: a loss, not a win
    number = gone.split()[-1]
    assert _round_mails(env, f"midway{number}@example.test") == []  # and no mail for it


def test_the_organisers_start_racing_the_job_is_no_failure(env, monkeypatch):
    public_id, ids = _dated(env, "racejob", 3)
    real = rounds.pair_next

    def job_first(env_, public_id_):
        real(env_, public_id_)  # the scheduler's run pairs round 1 just before
        return real(env_, public_id_)

    monkeypatch.setattr(rounds, "pair_next", job_first)
    assert entries.start_now(env, public_id, ids[0]) == 1
    assert state(env, public_id) == "running" and len(running_games(env, public_id)) == 1


def test_the_job_racing_the_organisers_start_is_no_failure(env, monkeypatch, caplog):
    public_id, _ids = _dated(env, "racejob2", 3)
    real = rounds.pair_next

    def organiser_first(env_, public_id_):
        real(env_, public_id_)  # the organiser's start pairs round 1 just before the job
        return real(env_, public_id_)

    with env.db.write() as session:  # the organiser's start has set it running
        session.scalars(select(Event).where(Event.public_id == public_id)).one().state = "running"
    monkeypatch.setattr(rounds, "pair_next", organiser_first)
    rounds.advance(env)
    assert "could not advance" not in caplog.text
    assert len(running_games(env, public_id)) == 1


def test_a_round_game_is_an_ordinary_game_with_its_record(env):
    public_id, _ids = new_event(env, "plain", 2, format="swiss", rounds=1)
    ((game, _),) = running_games(env, public_id)
    mail = _round_mails(env, "plain1@example.test")[0]
    assert "plain cup" in mail.subject and "/s/" in mail.text_body
    assert f"/events/{public_id}" in mail.text_body
    finish_round(env, public_id)
    record = game_records.export_record(env, game.public_id)
    assert record is not None


@pytest.mark.parametrize(
    ("prefix", "people", "spec", "rounds_played"),
    [
        ("big-robin", 7, {"format": "round-robin"}, 7),
        ("big-swiss", 9, {"format": "swiss", "rounds": 4}, 4),
        ("big-knock", 8, {"format": "elimination"}, 3),
    ],
)
def test_the_issues_whole_events_run_and_verify(env, prefix, people, spec, rounds_played):
    """Issue 34's events: a 7-player round robin, a 9-player 4-round Swiss and an 8-player
    elimination, with a withdrawal and a timeout each, verified with every game record."""
    public_id, ids = new_event(env, prefix, people, days_per_move=2, **spec)
    games = running_games(env, public_id)
    time_out(env, games[0][0])
    entries.withdraw(env, public_id, ids[-1])
    rounds.advance(env)
    for _ in range(rounds_played + 1):
        if state(env, public_id) == "finished":
            break
        finish_round(env, public_id, loser_seat=len(running_games(env, public_id)) % 2)
    assert state(env, public_id) == "finished"
    assert len(pages.event_page(env, public_id).rounds) == rounds_played
    _record_checks(env, public_id)


def test_the_computer_moving_first_makes_its_move_before_the_one_round_mail(env):
    """docs/events.md: one mail per round. When the computer moves first, its first move
    is made before the round mail is written: that mail shows the position after it, and
    no "your turn" follows it."""
    public_id, _ids = new_event(env, "cfirst", 1, computer="easy", format="double-round-robin")
    seen_first = False
    for _ in range(2):  # the second round swaps the seats: the computer is first in one
        ((game, _pairing),) = running_games(env, public_id)
        with env.db.read() as session:
            g = session.get(Game, game.id)
            person = next(s.seat for s in g.seats if s.bot is None)
            logged = session.scalars(select(MoveRow).where(MoveRow.game_id == g.id)).all()
            told = session.scalars(
                select(OutboxMessage).where(
                    OutboxMessage.game_id == g.id,
                    OutboxMessage.seat == person,
                    OutboxMessage.status != "dropped",
                )
            ).all()
        assert [m.kind for m in told] == ["invitation"]
        assert "first.It is" not in told[0].text_body  # a sentence per line, spaced
        assert "first.\nIt is your game of round" in told[0].text_body
        if person == 1:  # the computer sat first: its move was logged before the mail
            seen_first = True
            assert [m.source for m in logged] == ["bot"]
            assert "(move 1:" in told[0].text_body
            assert "move 1:" in told[0].html_body
        else:
            assert logged == []
        finish_round(env, public_id)
    assert seen_first
