"""The replay viewer, the audit of a turn, and records opened without a database.

One renderer serves every source: a finished game's public replay, a seat's own
replay through its link (the only way while the game runs), and a record file
uploaded on the home page or opened with ``pbem view FILE``. Every step has its
own URL (``?n=37&as=0``); JavaScript only fetches those same pages faster.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for

from ..clock import Clock, SystemClock
from ..config import Config
from ..engine import RecordError, load_record, position_json, public_view
from ..i18n import lazy_gettext as _l
from ..services import audit, ratelimit, viewing
from ..services.errors import BadRequest, NotFound
from ..services.replay import ALL, Replay, explore, from_record
from . import inputs
from .client import client
from .context import services

bp = Blueprint("replay", __name__)


def _step(replay: Replay, default: int) -> int:
    """The step asked for (``?n=``): one that is not a step of any game has no page (404),
    like a step past the end of this one (tests/web/test_replay.py pins both)."""
    try:
        return inputs.number(
            request.args, "n", low=0, high=inputs.MAX_MOVE, label=_l("Move"), default=default
        )
    except BadRequest:
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
    perspective = inputs.text(
        request.args, "as", limit=8, default=default if default in allowed else allowed[0]
    )
    n = _step(replay, replay.last)
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
    n = _step(replay, 0)
    branch = explore(replay, n, inputs.texts(request.args, "try"))
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


#: How deeply a record file's JSON may nest (a record needs five levels).
RECORD_DEPTH = 32


def uploads() -> Path:
    return Path(current_app.instance_path) / "records"


def _keeping() -> tuple[Config, Clock]:
    """The upload settings and the clock: the app's, or defaults for ``pbem view``."""
    env = current_app.extensions.get("pbem")
    return (env.config, env.clock) if env is not None else (Config(), SystemClock())


def store_record(data: bytes) -> str:
    """Keep a finished game's record (it is public) under its SHA-256; return the digest.

    Uploads are kept ``upload_days`` (the file's time is set from the app's clock),
    and at most ``upload_max_files`` files and ``upload_max_bytes`` in all: each
    upload first drops what has expired, then the oldest beyond those bounds.
    """
    if inputs.json_depth(data) > RECORD_DEPTH:
        raise BadRequest(_l("That file is not a game record: %(why)s", why="nested too deeply"))
    try:
        record = load_record(data)
    except (RecordError, RecursionError) as exc:
        raise BadRequest(_l("That file is not a game record: %(why)s", why=str(exc))) from None
    from_record(record)  # refuses a record without a seed, or one that does not replay
    config, clock = _keeping()
    now = clock.now().timestamp()
    digest = hashlib.sha256(data).hexdigest()
    folder = uploads()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{digest}.json"
    path.write_bytes(data)
    os.utime(path, (now, now))
    prune_uploads(folder, config, now, keep=path)
    return digest


def prune_uploads(folder: Path, config: Config, now: float, keep: Path | None = None) -> int:
    """Delete expired uploads, then the oldest beyond the count and size bounds."""
    oldest_kept = now - timedelta(days=config.upload_days).total_seconds()
    files: list[tuple[float, int, Path]] = []
    removed = 0
    for path in folder.glob("*.json"):
        try:
            stat = path.stat()
        except FileNotFoundError:  # another worker pruned it first
            continue
        if stat.st_mtime < oldest_kept and path != keep:
            path.unlink(missing_ok=True)
            removed += 1
        else:
            files.append((stat.st_mtime, stat.st_size, path))
    files.sort(key=lambda f: (f[2] == keep, f[0]), reverse=True)  # the new one, then newest
    count = total = 0
    for _mtime, size, path in files:
        count, total = count + 1, total + size
        if path != keep and (count > config.upload_max_files or total > config.upload_max_bytes):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _stored(digest: str) -> Any:
    if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
        raise NotFound(_l("There is no such record."))
    path = uploads() / f"{digest}.json"
    config, clock = _keeping()
    expired = clock.now().timestamp() - timedelta(days=config.upload_days).total_seconds()
    if not path.is_file() or path.stat().st_mtime < expired:
        raise NotFound(_l("There is no such record here (uploads are not kept forever)."))
    return load_record(path.read_bytes())


@bp.post("/records")
def upload() -> Any:
    env = current_app.extensions.get("pbem")
    if env is not None:  # ``pbem view`` serves one person: nothing to limit
        ratelimit.enforce(
            env,
            "uploads_per_client",
            client().ip,
            _l("Too many record files from here; try again later."),
        )
    file = request.files.get("record")
    if file is None or not file.filename:
        raise BadRequest(_l("Choose a record file (JSON) to open."))
    digest = store_record(file.read(current_app.config.get("MAX_CONTENT_LENGTH") or -1))
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
        step_url=lambda k: url_for("replay.public_audit", public_id=public_id, n=k),
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
        step_url=lambda k: url_for("replay.seat_audit", token=token, n=k),
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
