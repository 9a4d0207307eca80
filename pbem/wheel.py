"""The wheel a server offers for download, built from the pbem it runs.

Players check a finished game with ``pbem verify``. pbem is on no public index, so
every instance serves its own package (``/download/pbem-<version>-py3-none-any.whl``),
and the checker a player installs is the code that served the game. The wheel is
built from the installed distribution: from the files its RECORD lists when the
server was installed from a wheel, or from the source tree an editable install
points at (with the build's data folders and compiled catalogs, as ``setup.py``
lays them out). It is cached in the instance folder under a fingerprint of its
sources, so a changed checkout is never served a stale wheel.

Only the standard library is needed (Babel only to compile a checkout's
catalogs), so an installed copy rebuilds the same wheel, byte for byte.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import IO

import pbem

NAME = "pbem"
TAG = "py3-none-any"
#: The setuptools build copies these folders into the package as ``pbem/_data/`` (setup.py).
DATA_DIRS = ("templates", "static", "migrations")
#: dist-info files that describe one installation, not the package: never shipped.
INSTALL_ONLY = {"INSTALLER", "REQUESTED", "RECORD", "WHEEL", "direct_url.json"}
#: Every stored zip entry gets this time, so the same sources make the same bytes.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class NoPackage(RuntimeError):
    """pbem runs from a folder that was never installed: there is no distribution to offer."""


@dataclass(frozen=True, slots=True)
class Built:
    """A wheel on disk, as served: its file, its proper name and its digest."""

    path: Path
    name: str
    version: str
    sha256: str
    size: int


def wheel_name(version: str) -> str:
    """A valid wheel file name: pip refuses to install a URL whose last part is not one."""
    return f"{NAME}-{version}-{TAG}.whl"


def _distribution() -> metadata.Distribution:
    """The installation of pbem that runs here.

    Only a ``.dist-info`` counts (what pip installs): a checkout's stale ``pbem.egg-info``,
    left by an old build, is found first when the checkout is on ``sys.path``.
    """
    found = [d for d in metadata.distributions(name=NAME) if d.read_text("METADATA")]
    if not found:
        raise NoPackage(
            "pbem runs from a source folder that was never installed (pip install -e .), "
            "so it has no package to offer"
        )
    package = Path(pbem.__file__).resolve().parent
    for dist in found:
        if _listed(dist, package) is not None:
            return dist
    return found[0]


@cache
def version() -> str:
    """The running distribution's version (the package's own when it was never installed)."""
    try:
        return _distribution().version
    except NoPackage:
        return pbem.__version__


@dataclass(frozen=True, slots=True)
class Source:
    """One entry of the wheel: its name in the archive and where its bytes come from.

    ``path`` is the file whose size and time stand for it in the fingerprint; an
    entry without one (a compiled catalog names its ``.po``) is read for it instead.
    """

    name: str
    path: Path | None
    read: Callable[[], bytes]


def _file(name: str, path: Path) -> Source:
    return Source(name, path, path.read_bytes)


def _compiled(name: str, po: Path) -> Source:
    """The ``.mo`` of a catalog, as setup.py compiles it (fuzzy entries left out)."""

    def read() -> bytes:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        out = io.BytesIO()
        with po.open("rb") as source:
            write_mo(out, read_po(source), use_fuzzy=False)
        return out.getvalue()

    return Source(name, po, read)


def _text(name: str, text: str) -> Source:
    data = text.encode()
    return Source(name, None, lambda: data)


def _skipped(parts: tuple[str, ...]) -> bool:
    return any(p == "__pycache__" or p.startswith(".") for p in parts) or parts[-1].endswith(".pyc")


def _listed(dist: metadata.Distribution, package: Path) -> list[Source] | None:
    """The files an installed wheel put in place, or None for an editable install."""
    init = f"{NAME}/__init__.py"
    files = [f for f in dist.files or () if not f.parts[0].startswith("..")]
    if not any(f.as_posix() == init for f in files):
        return None
    if Path(str(dist.locate_file(init))).resolve() != package / "__init__.py":
        return None  # that installation is not the code running here
    info = f"{NAME}-{dist.version}.dist-info"
    return [
        _file(f.as_posix(), Path(str(dist.locate_file(f))))
        for f in files
        if not _skipped(f.parts) and not (f.parts[0] == info and f.parts[-1] in INSTALL_ONLY)
    ]


def _source_tree(dist: metadata.Distribution, package: Path) -> list[Source]:
    """What ``pip wheel`` packs from the checkout that an editable install runs."""
    from .resources import resource_dir

    out: list[Source] = []
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        if not path.is_file() or _skipped(rel.parts):
            continue
        name = f"{NAME}/{rel.as_posix()}"
        if path.suffix == ".py" or (rel.parts[0] == "i18n" and path.suffix == ".toml"):
            out.append(_file(name, path))
        elif rel.parts[0] == "translations" and path.suffix in (".po", ".pot"):
            out.append(_file(name, path))
            if path.suffix == ".po":
                out.append(_compiled(name[:-3] + ".mo", path))
    for folder in DATA_DIRS:
        root = resource_dir(folder)
        if root.resolve().is_relative_to(package):
            continue  # inside the package: packed above
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root)
            if path.is_file() and not _skipped(rel.parts):
                out.append(_file(f"{NAME}/_data/{folder}/{rel.as_posix()}", path))
    info = f"{NAME}-{dist.version}.dist-info"
    for meta in ("METADATA", "entry_points.txt", "top_level.txt"):
        text = dist.read_text(meta)
        if text is not None:
            out.append(_text(f"{info}/{meta}", text))
    return out


def sources() -> tuple[str, list[Source]]:
    """The version and every entry of the wheel of the running pbem."""
    dist = _distribution()
    package = Path(pbem.__file__).resolve().parent
    entries = _listed(dist, package)
    if entries is None:
        entries = _source_tree(dist, package)
    return dist.version, sorted(entries, key=lambda e: (".dist-info/" in e.name, e.name))


def fingerprint(version: str, entries: list[Source]) -> str:
    """What the wheel is built from, by name, size and time: cheap to check on every request."""
    digest = hashlib.sha256(version.encode())
    for e in entries:
        if e.path is None:
            digest.update(f"\n{e.name}|".encode() + hashlib.sha256(e.read()).digest())
        else:
            stat = e.path.stat()
            digest.update(f"\n{e.name}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _entries(version: str, entries: list[Source]) -> Iterator[tuple[str, bytes]]:
    info = f"{NAME}-{version}.dist-info"
    for e in entries:
        yield e.name, e.read()
    yield (
        f"{info}/WHEEL",
        (
            "Wheel-Version: 1.0\n"
            f"Generator: pbem {version} (pbem.wheel, from the installed distribution)\n"
            f"Root-Is-Purelib: true\nTag: {TAG}\n"
        ).encode(),
    )


def write_wheel(out: IO[bytes], version: str, entries: list[Source]) -> None:
    """The wheel's bytes: every entry, then WHEEL and a RECORD of their hashes (PEP 427)."""
    info = f"{NAME}-{version}.dist-info"
    record: list[str] = []
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:

        def put(name: str, data: bytes) -> None:
            entry = zipfile.ZipInfo(name, ZIP_TIME)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)

        for name, data in _entries(version, entries):
            put(name, data)
            record.append(f"{name},{_record_hash(data)},{len(data)}")
        record.append(f"{info}/RECORD,,")
        put(f"{info}/RECORD", ("\n".join(record) + "\n").encode())


def wheel_bytes() -> bytes:
    """The whole wheel of the running pbem, in memory."""
    version_, entries = sources()
    out = io.BytesIO()
    write_wheel(out, version_, entries)
    return out.getvalue()


_BUILT: dict[Path, Built] = {}


def _write(folder: Path, path: Path, version: str, entries: list[Source]) -> None:
    """Write the wheel under a name of this process's own, rename it into place, and drop
    the wheels of sources that changed since."""
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{path.name}.{os.getpid()}"
    with partial.open("wb") as out:
        write_wheel(out, version, entries)
    os.replace(partial, path)
    for old in folder.glob(f"{NAME}-*.whl"):
        if old != path:
            old.unlink(missing_ok=True)


def built(folder: Path) -> Built:
    """The wheel of the running pbem, built into ``folder`` once for each state of its sources.

    Several workers may build at once: each writes a file of its own and renames it
    into place, and the bytes are the same, so any of them is the right one.
    """
    version_, entries = sources()
    name = wheel_name(version_)
    path = folder / f"{NAME}-{version_}-{fingerprint(version_, entries)}-{TAG}.whl"
    known = _BUILT.get(path)
    if known is not None and path.is_file():
        return known
    if not path.is_file():
        try:
            _write(folder, path, version_, entries)
        except OSError:  # an instance folder the server may not write: a private temporary one
            folder = Path(tempfile.gettempdir()) / f"pbem-download-{os.getuid()}"
            path = folder / path.name
            if not path.is_file():
                _write(folder, path, version_, entries)
    data = path.read_bytes()
    made = Built(path, name, version_, hashlib.sha256(data).hexdigest(), len(data))
    _BUILT[path] = made
    return made
