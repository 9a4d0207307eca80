"""The replay viewer, the audit of a turn, and records opened without a database.

One renderer serves every source: a finished game's public replay, a seat's own
replay through its link (the only way while the game runs), and a record file
uploaded on the home page or opened with ``pbem view FILE``. Every step has its
own URL (``?n=37&as=0``); JavaScript only fetches those same pages faster.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from babel.support import LazyProxy
from flask import Blueprint, current_app, redirect, render_template, request, url_for

from ..clock import Clock, SystemClock
from ..config import Config
from ..engine import Viewer, observe
from ..i18n import lazy_gettext as _l
from ..services.core import limits
from ..services.core.errors import InvalidInput, Missing, ServiceError
from ..services.core.integrity import Flag
from ..services.records import audit, game_records, record_analysis, replay_access
from ..services.records import uploads as record_uploads
from ..services.records.analysis import Shown, chance_rounds
from ..services.records.replay_frames import ALL, Replay, explore
from ..services.records.uploads import RecordFile
from . import inputs
from .client import client
from .context import services
from .locale import for_seat

bp = Blueprint("replay", __name__)
log = logging.getLogger(__name__)


def _vs(names: tuple[str, str]) -> Any:
    """A game's title, "Ada vs Bo", in the reader's words."""
    return _l("%(first)s vs %(second)s", first=names[0], second=names[1])


def _step(replay: Replay, default: int) -> int:
    """The step asked for (``?n=``): one that is not a step of any game has no page (404),
    like a step past the end of this one (tests/web/test_replay.py pins both)."""
    try:
        return inputs.number(
            request.args, "n", low=0, high=inputs.MAX_MOVE, label=_l("Move"), default=default
        )
    except InvalidInput:
        raise Missing(_l("There is no such step.")) from None


def render_replay(
    replay: Replay,
    *,
    title: str | LazyProxy,
    viewer_seat: int | None,
    nav: Callable[..., str],
    audit: Callable[[int], str] | None,
    record_link: str | None = None,
    whatif: Callable[[int], str] | None = None,
    flag: Flag | None = None,
    computer: tuple[int, str] | None = None,
    analysis: Shown | None = None,
    upload: Upload | None = None,
) -> Any:
    """A step of a replay; every refusal on the way (no such step, a perspective not
    open to this viewer) carries the flag too, so a broken log never reads as a plain 404.
    ``upload``: the replay is of a record file someone opened (what its check covers)."""
    try:
        allowed = replay.perspectives(viewer_seat)
        default = str(viewer_seat) if viewer_seat is not None and not replay.finished else ALL
        fallback = default if default in allowed or not allowed else allowed[0]
        perspective = inputs.text(request.args, "as", limit=8, default=fallback)
        n = _step(replay, replay.last)
        deal = inputs.text(request.args, "deal", limit=4, default="") not in ("", "0")
        frame = replay.frame(n, perspective, viewer_seat, deal=deal)
    except ServiceError as exc:
        if exc.flag is None:
            exc.flag = flag
        raise
    links = _links(replay, frame, lambda at: nav(at[0], perspective, deal=at[1]))
    return render_template(
        "web/replay.html",
        replay=replay,
        frame=frame,
        steps=replay.all_steps[: replay.last],
        title=title,
        perspectives=allowed,
        nav=nav,
        audit=audit,
        record_link=record_link,
        links=links,
        deals=replay.deals,
        chart=replay.chart(perspective),
        n=n,
        deal=deal,
        perspective=perspective,
        names=replay.names,
        whatif=whatif if replay.finished or replay.public else None,
        flag=flag,
        computer=computer,  # a game against the computer is marked so
        analysis=analysis,
        judged=analysis.moves.get(n) if analysis is not None and n and not deal else None,
        chances=(
            chance_rounds(analysis, replay.all_steps, _chance_seat(viewer_seat, perspective))
            if analysis is not None
            else []
        ),
        reader_seat=viewer_seat,
        upload=upload,
    )


def _chance_seat(viewer_seat: int | None, perspective: str) -> int:
    """Whose chance the graph follows: the reader's own seat, else the seat the replay is
    seen as, else the first player."""
    if viewer_seat is not None:
        return viewer_seat
    return int(perspective) if perspective in ("0", "1") else 0


def _links(replay: Replay, frame: Any, url: Callable[[tuple[int, bool]], str]) -> dict[str, str]:
    """Where the controls go from ``frame``: one frame back and on (each round's fresh deal
    is a frame of its own), the first and last, and the deals of this round and the next."""
    positions = replay.positions()
    i = positions.index((frame.n, frame.deal))
    starts = replay.round_starts()
    start = starts.get(frame.round_number, (0, False))
    here = (frame.n, frame.deal)
    return {
        "first": url(positions[0]),
        "end": url(positions[-1]),
        "prev": url(positions[max(i - 1, 0)]),
        "next": url(positions[min(i + 1, len(positions) - 1)]),
        "prev_round": url(
            start if here != start else starts.get(frame.round_number - 1, (0, False))
        ),
        "next_round": url(starts.get(frame.round_number + 1, positions[-1])),
    }


def _deal(deal: bool) -> dict[str, Any]:
    """The query argument of a round's fresh deal (none for a move's frame)."""
    return {"deal": 1} if deal else {}


def _seen_as(viewer: str) -> dict[str, Any]:
    """The query argument of whose eyes a frame is seen through (``as`` is a Python keyword)."""
    return {"as": viewer}


def render_whatif(
    replay: Replay,
    *,
    title: str,
    here: Callable[..., str],
    back: Callable[[int], str],
    flag: Flag | None = None,
) -> Any:
    try:
        n = _step(replay, 0)
        branch = explore(replay, n, inputs.texts(request.args, "try"))
    except ServiceError as exc:
        if exc.flag is None:
            exc.flag = flag
        raise
    # a what-if opens only where everything may be seen (``explore`` checks it)
    mine = observe(branch.state, Viewer.ALL, seed_published=True).view
    real = observe(branch.real, Viewer.ALL, seed_published=True).view
    return render_template(
        "web/whatif.html",
        b=branch,
        flag=flag,
        title=title,
        names=replay.names,
        here=here,
        back=back(n),
        mine=mine,
        real=real,
        mine_table=mine.table,
        real_table=real.table,
    )


@bp.get("/g/<public_id>/whatif")
def public_whatif(public_id: str) -> Any:
    opened = replay_access.open_public(services(), public_id)
    names = opened.game.names
    return render_whatif(
        opened.replay,
        title=_vs(names),
        here=lambda **q: url_for("replay.public_whatif", public_id=public_id, **q),
        back=lambda n: url_for("replay.public_replay", public_id=public_id, n=n, **_seen_as("all")),
        flag=opened.game.flag,
    )


@bp.get("/r/<digest>/whatif")
def record_whatif(digest: str) -> Any:
    opened = _opened(digest)
    replay = opened.replay
    return render_whatif(
        replay,
        title=_vs(replay.names),
        here=lambda **q: url_for("replay.record_whatif", digest=digest, **q),
        back=lambda n: url_for("replay.record_replay", digest=digest, n=n, **_seen_as("all")),
        flag=opened.flag,
    )


@bp.get("/g/<public_id>/replay")
def public_replay(public_id: str) -> Any:
    opened = replay_access.open_public(services(), public_id)
    names = opened.game.names
    return render_replay(
        opened.replay,
        title=_vs(names),
        viewer_seat=None,
        nav=lambda n, p, deal=False: url_for(
            "replay.public_replay", public_id=public_id, n=n, **_seen_as(p), **_deal(deal)
        ),
        audit=lambda n: url_for("replay.public_audit", public_id=public_id, n=n),
        record_link=url_for("pages.record", public_id=public_id),
        whatif=lambda n: url_for("replay.public_whatif", public_id=public_id, n=n),
        flag=opened.game.flag,
        computer=opened.game.computer,
        analysis=opened.analysis,
    )


@bp.get("/s/<secret:token>/replay")
def seat_replay(token: str) -> Any:
    opened = replay_access.open_seat(services(), token, client())
    if opened.reader is not None:
        for_seat(opened.reader)  # the seat's language and time zone, as on its page
    names = opened.game.names
    return render_replay(
        opened.replay,
        title=_vs(names),
        viewer_seat=opened.viewer_seat,
        nav=lambda n, p, deal=False: url_for(
            "replay.seat_replay", token=token, n=n, **_seen_as(p), **_deal(deal)
        ),
        audit=lambda n: url_for("replay.seat_audit", token=token, n=n),
        flag=opened.game.flag,
        computer=opened.game.computer,
        analysis=opened.analysis,
    )


# ------------------------------------------------------------ record files


#: How deeply a record file's JSON may nest (a record needs five levels).
RECORD_DEPTH = 32


def uploads() -> Path:
    return Path(current_app.instance_path) / "records"


def _keeping() -> tuple[Config, Clock]:
    """The upload settings and the clock: the app's, or defaults for ``pbem view``."""
    env = current_app.extensions.get("pbem")
    return (env.config, env.clock) if env is not None else (Config(), SystemClock())


def _bounded(data: bytes) -> bytes:
    """The bytes of a record file, refused before any parser sees them if they nest
    deeper than a record can (where the input enters, invariant 9)."""
    if inputs.json_depth(data) > RECORD_DEPTH:
        raise InvalidInput(_l("That file is not a game record: %(why)s", why="nested too deeply"))
    return data


def store_record(data: bytes) -> str:
    """Keep an uploaded record file within the operator's bounds; its digest."""
    config, clock = _keeping()
    return record_uploads.keep(uploads(), _bounded(data), config, clock.now().timestamp())


def _opened(digest: str) -> RecordFile:
    config, clock = _keeping()
    return record_uploads.kept(uploads(), digest, config, clock.now().timestamp())


@bp.post("/records")
def upload() -> Any:
    env = current_app.extensions.get("pbem")
    if env is not None:  # ``pbem view`` serves one person: nothing to limit
        limits.enforce(
            env,
            "uploads_per_client",
            limits.network(client().ip),
            _l("Too many record files from here; try again later."),
        )
    file = request.files.get("record")
    if file is None or not file.filename:
        raise InvalidInput(_l("Choose a record file (JSON) to open."))
    digest = store_record(file.read(current_app.config.get("MAX_CONTENT_LENGTH") or -1))
    return redirect(url_for("replay.record_replay", digest=digest), code=303)


class Upload(NamedTuple):
    """What the page of an uploaded record says besides the replay: whether it passed the
    check (which never covers the names), the server's own game it copies, if any, and
    where to ask for its analysis (none: it cannot be, or it has been asked for)."""

    passes: bool
    held: game_records.HeldGame | None
    analyse: str | None = None


def _upload_of(opened: RecordFile, digest: str, analysis: Shown | None) -> Upload:
    passes = opened.report.first_failure is None
    env = current_app.extensions.get("pbem")  # ``pbem view`` has no server behind it
    held = game_records.held_game(env, opened.record) if passes and env is not None else None
    can = env is not None and analysis is None and record_analysis.analysable(opened)
    analyse = url_for("replay.record_analyse", digest=digest) if can else None
    return Upload(passes, held, analyse)


@bp.post("/r/<digest>/analysis")
def record_analyse(digest: str) -> Any:
    """Ask for the analysis of an uploaded record (the button on its replay)."""
    env = current_app.extensions.get("pbem")
    if env is None:  # ``pbem view``: no scheduler to judge it
        raise Missing(_l("There is no such record."))
    record_analysis.ask(env, digest, _opened(digest), client())
    return redirect(url_for("replay.record_replay", digest=digest), code=303)


@bp.get("/r/<digest>")
def record_replay(digest: str) -> Any:
    opened = _opened(digest)
    replay = opened.replay
    env = current_app.extensions.get("pbem")
    analysis = record_analysis.shown(env, digest) if env is not None else None
    return render_replay(
        replay,
        title=_l(
            "%(first)s vs %(second)s (record file)", first=replay.names[0], second=replay.names[1]
        ),
        viewer_seat=None,
        nav=lambda n, p, deal=False: url_for(
            "replay.record_replay", digest=digest, n=n, **_seen_as(p), **_deal(deal)
        ),
        audit=None,
        record_link=url_for("replay.record_file", digest=digest),
        whatif=lambda n: url_for("replay.record_whatif", digest=digest, n=n),
        flag=opened.flag,
        analysis=analysis,
        upload=_upload_of(opened, digest, analysis),
    )


#: What may go into a header from a check's name (the rest of the words stay in the file).
_HEADER_SAFE = re.compile(r"[^a-z0-9 _-]")


@bp.get("/r/<digest>.json")
def record_file(digest: str) -> Any:
    """The file exactly as it was uploaded, so that ``pbem verify`` on it finds what the
    pages say. One that fails verification says so where a downloader sees it: in the
    file's name, and (for programs) in ``X-Pbem-Verification``; it is not rewritten."""
    opened = _opened(digest)
    failure = opened.report.first_failure
    if failure is None:
        name, verdict = f"jaipur-record-{digest[:12]}.json", "passes"
    else:
        name = f"jaipur-record-{digest[:12]}-FAILS-VERIFICATION.json"
        verdict = "fails: " + _HEADER_SAFE.sub("", failure.name.lower())[:40]
    return current_app.response_class(
        opened.data,
        mimetype="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "X-Pbem-Verification": verdict,
        },
    )


# ------------------------------------------------------------ the audit of a turn


def _json_download(data: dict[str, Any], name: str) -> Any:
    return current_app.response_class(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n",
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"', **flag_headers(data)},
    )


def flag_headers(data: dict[str, Any]) -> dict[str, str]:
    """A download from a game whose log does not verify says so to programs too (the file
    itself says it in its ``flagged`` member)."""
    return {"X-Pbem-Verification": "fails: the stored log"} if "flagged" in data else {}


@bp.get("/g/<public_id>/audit/<int:n>")
def public_audit(public_id: str, n: int) -> Any:
    result = audit.public_audit(services(), public_id, n)
    return render_template(
        "web/audit.html",
        a=result,
        replay_url=url_for("replay.public_replay", public_id=public_id, n=n),
        step_url=lambda k: url_for("replay.public_audit", public_id=public_id, n=k),
        evidence_url=url_for("replay.public_evidence", public_id=public_id, n=n),
        record_url=url_for("pages.record", public_id=public_id),
    )


@bp.get("/s/<secret:token>/audit/<int:n>")
def seat_audit(token: str, n: int) -> Any:
    result = audit.seat_audit(services(), token, n, client())
    if result.reader is not None:
        for_seat(result.reader)  # the seat's language and time zone, as on its page
    return render_template(
        "web/audit.html",
        a=result,
        replay_url=url_for("replay.seat_replay", token=token, n=n),
        step_url=lambda k: url_for("replay.seat_audit", token=token, n=k),
        evidence_url=url_for("replay.seat_evidence", token=token, n=n),
        record_url=None,
    )


@bp.get("/g/<public_id>/audit/<int:n>/evidence.json")
def public_evidence(public_id: str, n: int) -> Any:
    data = audit.public_evidence(services(), public_id, n)
    return _json_download(data, f"jaipur-{public_id}-move-{n}.json")


@bp.get("/s/<secret:token>/audit/<int:n>/evidence.json")
def seat_evidence(token: str, n: int) -> Any:
    data = audit.seat_evidence(services(), token, n, client())
    return _json_download(data, f"jaipur-{data['game_id']}-move-{n}.json")
