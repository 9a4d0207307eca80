"""The analysis in the replay and the API: every language, and nothing while a game runs."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.i18n import LANGUAGES
from pbem.services.core import access, lookup
from pbem.services.play import game_pages, moves
from pbem.services.records import analysis
from pbem.store.models import AnalysisMove, Game
from tests.mail.play import new_game, play, token
from tests.support import own_database

# A database of this module's own (the analysis job looks at every finished game).
database_url, database = own_database("module")


def _finished(env, count: int = 8) -> str:
    public_id = new_game(env)
    play(env, public_id, count)
    moves.submit_move(env, token(env, public_id, count % 2), count + 1, "resign", access.Client())
    return public_id


def _analyse(env, public_id: str, budget: int = 100) -> None:
    with env.db.read() as session:
        game_id = lookup.game_row(session, public_id).id
    analysis.analyse_slice(env, game_id, budget)


@pytest.fixture(scope="module")
def analysed(module_env) -> tuple[str, analysis.Shown]:
    env = module_env
    public_id = _finished(env)
    _analyse(env, public_id)
    shown = analysis.public_analysis(env, public_id)
    assert shown.done
    return public_id, shown


def test_the_replay_shows_the_verdict_marks_counts_and_graph(client, analysed):
    public_id, shown = analysed
    page = client.get(f"/g/{public_id}/replay?n=3&lang=en").get_data(as_text=True)
    j = shown.moves[3]
    assert 'class="verdict' in page
    if j.label:
        assert "better: <code" in page
    elif j.better:
        assert "Fair move</b> · Ada's chance to win the match:" in page
    else:
        assert "Best move found</b> · Ada's chance to win the match:" in page
    assert f"{round(j.after * 100)}%" in page
    assert 'class="analysis"' in page and "Inaccuracies" in page
    assert page.count('class="chart chance-chart"') == 1  # one round was played
    assert "As a table" in page and 'class="chance-table"' in page
    for judged in shown.moves.values():
        if judged.mark:
            assert (
                f'title="{judged.label.capitalize()}"><bdi dir="ltr">{judged.mark}</bdi></abbr>'
                in page
            )
    # the resignation is not judged: its step has no verdict
    last = client.get(f"/g/{public_id}/replay?n=9&lang=en").get_data(as_text=True)
    assert 'class="verdict' not in last


@pytest.mark.slow  # a whole match searched or judged: seconds on its own
def test_a_marked_move_names_the_better_one(client, module_env):
    """A labelled verdict reads "Blunder ?? · better: take gold: 28% → 58%"."""
    public_id = _finished(module_env, 8)
    _analyse(module_env, public_id)
    with module_env.db.write() as session:  # a stored verdict made a blunder, to read its words
        row = session.scalars(
            select(AnalysisMove).filter_by(game_id=_id(module_env, public_id), n=1)
        ).one()
        row.before, row.after, row.best, row.drop, row.label = (
            0.58,
            0.28,
            "take gold",
            30.0,
            "blunder",
        )
    page = client.get(f"/g/{public_id}/replay?n=1&lang=en").get_data(as_text=True)
    text = re.sub(r"<[^>]+>", "", page)
    assert "Blunder ?? · better: take gold: Ada's chance to win the match 28% → 58%" in text
    assert 'title="Blunder"><bdi dir="ltr">??</bdi></abbr>' in page  # its mark in the move list


def _id(env, public_id: str) -> int:
    with env.db.read() as session:
        return lookup.game_row(session, public_id).id


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_language_shows_the_analysis(client, analysed, language):
    public_id = analysed[0]
    page = client.get(f"/g/{public_id}/replay?n=2&lang={language}").get_data(as_text=True)
    assert 'class="analysis"' in page and 'class="verdict' in page
    if language == "fa":
        assert 'dir="rtl"' in page and "٪" in page
    if language != "en":
        for english in ("As a table", "Inaccuracies", "chance to win the match"):
            assert english not in page, (language, english)


def test_progress_while_the_job_runs(client, module_env):
    public_id = _finished(module_env, 6)
    page = client.get(f"/g/{public_id}/replay?lang=en").get_data(as_text=True)
    assert "The analysis of this game has not begun yet." in page
    _analyse(module_env, public_id, 3)
    page = client.get(f"/g/{public_id}/replay?n=2&lang=en").get_data(as_text=True)
    assert "Analysis in progress: 3 of 7 moves" in page
    assert 'class="verdict' in page  # what is done is shown already


def test_nothing_while_the_game_runs(client, module_env):
    env = module_env
    public_id = new_game(env)
    play(env, public_id, 4)
    seat = game_pages.seat_tokens(env, public_id)[0]
    page = client.get(f"/s/{seat}/replay?n=2&lang=en").get_data(as_text=True)
    assert 'class="analysis"' not in page and "verdict" not in page and "Analysis" not in page
    assert client.get(f"/api/games/{public_id}/analysis").status_code == 403
    refused = client.get("/api/seat/analysis", headers={"Authorization": f"Bearer {seat}"})
    assert refused.status_code == 403 and "once it is over" in refused.get_json()["error"]


def test_the_api_serves_a_finished_games_analysis(client, module_env, analysed):
    public_id = analysed[0]
    data = client.get(f"/api/games/{public_id}/analysis").get_json()
    assert data["status"] == "done" and data["total"] == 9
    assert [m["n"] for m in data["moves"]] == list(range(1, 10))
    first = data["moves"][0]
    assert first["seat"] == 0 and 0 <= first["after"] <= first["before"] <= 1
    seat = game_pages.seat_tokens(module_env, public_id)[1]
    same = client.get("/api/seat/analysis", headers={"Authorization": f"Bearer {seat}"})
    assert same.status_code == 200 and same.get_json() == data
    seat_page = client.get(f"/s/{seat}/replay?n=2").get_data(as_text=True)
    assert 'class="analysis"' in seat_page
    assert client.get("/api/games/nosuchgame/analysis").status_code == 404


def test_a_flagged_game_is_never_judged(module_env):
    public_id = _finished(module_env, 2)
    with module_env.db.write() as session:
        game = session.get(Game, _id(module_env, public_id))
        assert game is not None
        game.integrity_error = "test: altered"
    _analyse(module_env, public_id)
    with module_env.db.read() as session:
        from pbem.store import analyses

        assert analyses.of_game(session, _id(module_env, public_id)) is None
