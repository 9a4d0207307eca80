"""The replay viewer, the audit of a turn, and records opened without a database.

One renderer serves every source: a finished game's public replay, a seat's own
replay through its link (the only way while the game runs), and a record file
uploaded on the home page or opened with ``pbem view FILE``. Every step has its
own URL (``?n=37&as=0``); JavaScript only fetches those same pages faster.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for

from ..engine import RecordError, load_record, position_json, public_view
from ..i18n import lazy_gettext as _l
from ..services import audit, viewing
from ..services.errors import BadRequest, NotFound
from ..services.replay import ALL, Replay, explore, from_record
from .client import client
from .context import services

bp = Blueprint("replay", __name__)


def _step(replay: Replay) -> int:
    raw = request.args.get("n", "")
    if raw == "":
        return replay.last
    try:
        return int(raw)
    except ValueError:
        raise NotFound(_l("There is no such step.")) from None


def render_replay(
    replay: Replay,
    *,
    title: str,
    viewer_seat: int | None,
    nav: Callable[..., str],
    audit: Callable[[int], str] | None,
    record_link: str | None = None,
    whatif: Callable[[int], str] | None = None,
    integrity_error: str | None = None,
) -> Any:
    allowed = replay.perspectives(viewer_seat)
    default = str(viewer_seat) if viewer_seat is not None and not replay.finished else ALL
    perspective = request.args.get("as", default if default in allowed else allowed[0])
    n = _step(replay)
    frame = replay.frame(n, perspective, viewer_seat)
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
        starts=replay.round_starts(),
        chart=replay.chart(perspective),
        n=n,
        perspective=perspective,
        names=replay.names,
        whatif=whatif if replay.finished else None,
        integrity_error=integrity_error,
    )


def render_whatif(
    replay: Replay, *, title: str, here: Callable[..., str], back: Callable[[int], str]
) -> Any:
    try:
        n = int(request.args.get("n", "0"))
    except ValueError:
        raise NotFound(_l("There is no such step.")) from None
    branch = explore(replay, n, request.args.getlist("try"))
    return render_template(
        "web/whatif.html",
        b=branch,
        title=title,
        names=replay.names,
        here=here,
        back=back(n),
        mine=position_json(branch.state),
        real=position_json(branch.real),
        mine_table=public_view(branch.state).table,
        real_table=public_view(branch.real).table,
    )


@bp.get("/g/<public_id>/whatif")
def public_whatif(public_id: str) -> Any:
    opened = viewing.open_public(services(), public_id)
    names = opened.game.names
    return render_whatif(
        opened.replay,
        title=f"{names[0]} vs {names[1]}",
        here=lambda **q: url_for("replay.public_whatif", public_id=public_id, **q),
        back=lambda n: url_for("replay.public_replay", public_id=public_id, n=n, **{"as": "all"}),
    )


@bp.get("/r/<digest>/whatif")
def record_whatif(digest: str) -> Any:
    replay = from_record(_stored(digest))
    return render_whatif(
        replay,
        title=f"{replay.names[0]} vs {replay.names[1]}",
        here=lambda **q: url_for("replay.record_whatif", digest=digest, **q),
        back=lambda n: url_for("replay.record_replay", digest=digest, n=n, **{"as": "all"}),
    )


@bp.get("/g/<public_id>/replay")
def public_replay(public_id: str) -> Any:
    opened = viewing.open_public(services(), public_id)
    names = opened.game.names
    return render_replay(
        opened.replay,
        title=f"{names[0]} vs {names[1]}",
        viewer_seat=None,
        nav=lambda n, p: url_for("replay.public_replay", public_id=public_id, n=n, **{"as": p}),
        audit=lambda n: url_for("replay.public_audit", public_id=public_id, n=n),
        record_link=url_for("pages.record", public_id=public_id),
        whatif=lambda n: url_for("replay.public_whatif", public_id=public_id, n=n),
        integrity_error=opened.game.integrity_error,
    )


@bp.get("/s/<token>/replay")
def seat_replay(token: str) -> Any:
    opened = viewing.open_seat(services(), token, client())
    names = opened.game.names
    return render_replay(
        opened.replay,
        title=f"{names[0]} vs {names[1]}",
        viewer_seat=opened.viewer_seat,
        nav=lambda n, p: url_for("replay.seat_replay", token=token, n=n, **{"as": p}),
        audit=lambda n: url_for("replay.seat_audit", token=token, n=n),
        integrity_error=opened.game.integrity_error,
    )


# ------------------------------------------------------------ record files


def uploads() -> Path:
    return Path(current_app.instance_path) / "records"


def store_record(data: bytes) -> str:
    """Keep a finished game's record (it is public) under its SHA-256; return the digest."""
    try:
        record = load_record(data)
    except RecordError as exc:
        raise BadRequest(_l("That file is not a game record: %(why)s", why=str(exc))) from None
    from_record(record)  # refuses a record without a seed, or one that does not replay
    digest = hashlib.sha256(data).hexdigest()
    folder = uploads()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{digest}.json").write_bytes(data)
    return digest


def _stored(digest: str) -> Any:
    if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
        raise NotFound(_l("There is no such record."))
    path = uploads() / f"{digest}.json"
    if not path.is_file():
        raise NotFound(_l("There is no such record here (uploads are not kept forever)."))
    return load_record(path.read_bytes())


@bp.post("/records")
def upload() -> Any:
    file = request.files.get("record")
    if file is None or not file.filename:
        raise BadRequest(_l("Choose a record file (JSON) to open."))
    digest = store_record(file.read())
    return redirect(url_for("replay.record_replay", digest=digest), code=303)


@bp.get("/r/<digest>")
def record_replay(digest: str) -> Any:
    record = _stored(digest)
    replay = from_record(record)
    return render_replay(
        replay,
        title=f"{replay.names[0]} vs {replay.names[1]} (record file)",
        viewer_seat=None,
        nav=lambda n, p: url_for("replay.record_replay", digest=digest, n=n, **{"as": p}),
        audit=None,
        record_link=url_for("replay.record_file", digest=digest),
        whatif=lambda n: url_for("replay.record_whatif", digest=digest, n=n),
    )


@bp.get("/r/<digest>.json")
def record_file(digest: str) -> Any:
    record = _stored(digest)
    return current_app.response_class(
        json.dumps(record.to_json(), indent=1) + "\n", mimetype="application/json"
    )


# ------------------------------------------------------------ the audit of a turn


def _json_download(data: dict[str, Any], name: str) -> Any:
    return current_app.response_class(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n",
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@bp.get("/g/<public_id>/audit/<int:n>")
def public_audit(public_id: str, n: int) -> Any:
    result = audit.public_audit(services(), public_id, n)
    return render_template(
        "web/audit.html",
        a=result,
        replay_url=url_for("replay.public_replay", public_id=public_id, n=n),
        evidence_url=url_for("replay.public_evidence", public_id=public_id, n=n),
        record_url=url_for("pages.record", public_id=public_id),
    )


@bp.get("/s/<token>/audit/<int:n>")
def seat_audit(token: str, n: int) -> Any:
    result = audit.seat_audit(services(), token, n, client())
    return render_template(
        "web/audit.html",
        a=result,
        replay_url=url_for("replay.seat_replay", token=token, n=n),
        evidence_url=url_for("replay.seat_evidence", token=token, n=n),
        record_url=None,
    )


@bp.get("/g/<public_id>/audit/<int:n>/evidence.json")
def public_evidence(public_id: str, n: int) -> Any:
    data = audit.public_evidence(services(), public_id, n)
    return _json_download(data, f"jaipur-{public_id}-move-{n}.json")


@bp.get("/s/<token>/audit/<int:n>/evidence.json")
def seat_evidence(token: str, n: int) -> Any:
    data = audit.seat_evidence(services(), token, n, client())
    return _json_download(data, f"jaipur-{data['game_id']}-move-{n}.json")
