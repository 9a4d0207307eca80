"""Record files someone opened: read, verified and replayed; kept under their SHA-256 for
a while (they are public) and pruned within the operator's bounds.

The web tier bounds the bytes where they enter (their size, how deeply their JSON
nests) and calls these; nothing here knows of a request.
"""

from __future__ import annotations

import hashlib
import logging
import os
from datetime import timedelta
from functools import lru_cache
from pathlib import Path

from ...config import Config
from ...engine import RecordError, Verification, load_record, verify
from ...engine.record import Record
from ...i18n import lazy_gettext as _l
from ..core.errors import InvalidInput, Missing
from ..core.integrity import Flag
from .replay_frames import Replay, from_record

log = logging.getLogger(__name__)


class RecordFile:
    """A record file read, verified and replayed: what every page of it shows."""

    __slots__ = ("data", "flag", "record", "replay", "report")

    def __init__(self, data: bytes, record: Record, replay: Replay, report: Verification) -> None:
        self.data = data  #: the bytes as uploaded: the download serves exactly these
        self.record = record
        self.replay = replay
        self.report = report
        self.flag = _record_flag(report, replay)


def _record_flag(report: Verification, replay: Replay) -> Flag | None:
    """What the pages of a record file that fails verification say: the check that broke."""
    failure = report.first_failure
    if failure is None:
        return None
    return Flag(f"{failure.name}: {failure.detail}", replay.last if replay.broken else None, True)


def read_file(data: bytes) -> RecordFile:
    """Read, verify and replay a record file; ``InvalidInput`` for anything that is not one.

    The loader's ``RecordError`` says what is wrong with the file. A file that makes the
    reader itself fail (too deep for the parser, or a type the loader did not expect) is
    refused the same way, never answered with a 500; the latter is logged, as a bug.
    """
    try:
        record = load_record(data)
        report = verify(record)
    except RecordError as exc:
        raise InvalidInput(_l("That file is not a game record: %(why)s", why=str(exc))) from None
    except RecursionError:
        raise InvalidInput(
            _l("That file is not a game record: %(why)s", why="nested too deeply")
        ) from None
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError) as exc:
        log.warning("a record file the reader could not handle", exc_info=True)
        why = f"it could not be read ({type(exc).__name__})"
        raise InvalidInput(_l("That file is not a game record: %(why)s", why=why)) from None
    # refuses a record without a seed (a player's view of a running game)
    return RecordFile(data, record, from_record(record), report)


def keep(folder: Path, data: bytes, config: Config, now: float) -> str:
    """Keep a game's record file (it is public) under its SHA-256; return the digest.

    One that fails verification is kept too, and shown as failing on every page of it:
    someone holding a doubtful record wants to see where it breaks. One that is not a
    record at all is refused here.

    Uploads are kept ``upload_days`` (the file's time is set from the app's clock),
    and at most ``upload_max_files`` files and ``upload_max_bytes`` in all: each
    upload first drops what has expired, then the oldest beyond those bounds.
    """
    read_file(data)
    digest = hashlib.sha256(data).hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{digest}.json"
    path.write_bytes(data)
    os.utime(path, (now, now))
    prune(folder, config, now, keep=path)
    return digest


def prune(folder: Path, config: Config, now: float, keep: Path | None = None) -> int:
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


def kept(folder: Path, digest: str, config: Config, now: float) -> RecordFile:
    """The kept record file ``digest``, read and verified (once per process: a file
    named by its own hash never changes)."""
    if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
        raise Missing(_l("There is no such record."))
    path = folder / f"{digest}.json"
    expired = now - timedelta(days=config.upload_days).total_seconds()
    if not path.is_file() or path.stat().st_mtime < expired:
        raise Missing(_l("There is no such record here (uploads are not kept forever)."))
    return _read_kept(str(path), digest)


@lru_cache(maxsize=16)
def _read_kept(path: str, digest: str) -> RecordFile:
    data = Path(path).read_bytes()
    if hashlib.sha256(data).hexdigest() != digest:  # changed on disk: never shown as it
        raise Missing(_l("There is no such record."))
    return read_file(data)
