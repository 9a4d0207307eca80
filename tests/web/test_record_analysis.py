"""The analysis of an uploaded record file (``/r/<digest>``): asked for with a button on
its replay, rate-limited per client, kept by the file's digest, judged by the scheduler's
job as a game's is, and shown like a game's analysis."""

from __future__ import annotations

import io
import json

from pbem.config import Limits
from pbem.services.core import access
from pbem.services.play import moves
from pbem.services.records import record_analysis
from pbem.web import create_app
from tests.helpers import csrf_of
from tests.mail.play import new_game, play, token
from tests.support import own_database

# the job looks at every record file asked for: this module's own only
database_url, database = own_database("module")

BUTTON = "Analyse this game"


def _record(env, count: int, first: str = "ada@example.test") -> bytes:
    """The record of a finished game of ``count`` moves and a resignation."""
    public_id = new_game(env, emails=(first, "bo@example.test"))
    play(env, public_id, count)
    moves.submit_move(env, token(env, public_id, count % 2), count + 1, "resign", access.Client())
    return env.test_client.get(f"/g/{public_id}/record.json").data


def _client(env, **limits):
    env.config = env.config.with_(limits=Limits(**limits))
    client = create_app(env=env).test_client()
    env.test_client = client
    return client


def _upload(client, data: bytes) -> str:
    csrf = csrf_of(client.get("/").text)
    answer = client.post(
        "/records",
        data={"csrf_token": csrf, "record": (io.BytesIO(data), "game.json")},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 303, answer.text
    return answer.headers["Location"].split("?")[0]


def _ask(client, page: str):
    csrf = csrf_of(client.get("/").text)
    return client.post(f"{page}/analysis", data={"csrf_token": csrf})


def test_an_uploaded_record_is_analysed_on_demand_and_shown_like_a_game(env):
    client = _client(env)
    data = _record(env, 6)
    page = _upload(client, data)
    before = client.get(page + "?lang=en").text
    assert BUTTON in before and 'class="analysis"' not in before
    answer = _ask(client, page)
    assert answer.status_code == 303 and answer.headers["Location"].endswith(page)
    asked = client.get(page + "?lang=en").text
    assert BUTTON not in asked  # asked once: the page says how far it has got instead
    assert "Analysis in progress: 0 of 7 moves" in asked
    while record_analysis.analyse(env, 100):
        pass
    digest = page.rsplit("/", 1)[1]
    shown = record_analysis.shown(env, digest)
    assert shown is not None and shown.done and sorted(shown.moves) == list(range(1, 8))
    assert shown.moves[7].after is None  # the resignation is not judged
    done = client.get(f"{page}?n=3&lang=en").text
    assert 'class="analysis"' in done and "Analysis in progress" not in done
    assert BUTTON not in done
    assert _upload(client, data) == page  # the same file opened again: its analysis kept
    assert 'class="analysis"' in client.get(page + "?lang=en").text
    viewer = create_app(record=data).test_client()  # ``pbem view``: no scheduler, no button
    alone = viewer.get("/r/" + page.rsplit("/", 1)[1] + "?lang=en")
    assert alone.status_code == 200 and BUTTON not in alone.text


def test_asking_is_limited_per_client_and_asking_again_is_free(env):
    client = _client(env, record_analyses_per_client="1 per hour")
    first = _upload(client, _record(env, 2, "one@example.test"))
    second = _upload(client, _record(env, 4, "two@example.test"))
    assert _ask(client, first).status_code == 303
    assert _ask(client, first).status_code == 303  # asked already: nothing counted
    refused = _ask(client, second)
    assert refused.status_code == 429
    assert "Too many analyses asked for from here" in refused.text
    assert record_analysis.shown(env, second.rsplit("/", 1)[1]) is None
    env.clock.advance(hours=1, seconds=1)
    assert _ask(client, second).status_code == 303
    while record_analysis.analyse(env, 100):
        pass


def test_a_record_that_fails_verification_is_not_analysed(env):
    client = _client(env)
    from tests.web.test_record_uploads import _forged

    data = _record(env, 4, "doctored@example.test")
    page = _upload(client, json.dumps(_forged(json.loads(data))).encode())
    assert BUTTON not in client.get(page + "?lang=en").text
    assert _ask(client, page).status_code == 400


def test_an_analysis_goes_when_uploads_are_no_longer_kept(env):
    client = _client(env)
    page = _upload(client, _record(env, 2, "expiring@example.test"))
    assert _ask(client, page).status_code == 303
    digest = page.rsplit("/", 1)[1]
    while record_analysis.analyse(env, 100):
        pass
    assert record_analysis.shown(env, digest) is not None
    env.clock.advance(days=env.config.upload_days, seconds=1)
    record_analysis.analyse(env, 100)
    assert record_analysis.shown(env, digest) is None
