"""This server's own package, for players who check a game with ``pbem verify``.

pbem is on no public index, so the instance serves the code it runs
(``pbem.wheel``): ``/download`` says how to check a record, and
``/download/pbem-<version>-py3-none-any.whl`` is the wheel. pip installs a URL only
when its last part is a valid wheel name, so the stable ``/pbem.whl`` redirects
there, for a browser or ``curl -L``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, send_file, url_for

from ..i18n import lazy_gettext as _l
from ..services.core.errors import Missing
from ..wheel import NoPackage, built, version, wheel_name
from .context import services

bp = Blueprint("download", __name__)


def _built() -> Any:
    try:
        return built(Path(current_app.instance_path) / "download")
    except NoPackage:
        raise Missing(
            _l(
                "This server runs pbem from a folder that was never installed, so it has "
                "no package to offer."
            )
        ) from None


@bp.get("/download")
def page() -> str:
    return render_template(
        "web/download.html",
        wheel=_built(),
        wheel_url=services().wheel_url(),
        stable_url=f"{services().config.base_url}{url_for('download.stable')}",
    )


@bp.get("/download/<name>")
def wheel(name: str) -> Any:
    if name != wheel_name(version()):
        raise Missing(
            _l(
                "This server offers pbem %(version)s only: %(url)s",
                version=version(),
                url=services().wheel_url(),
            )
        )
    made = _built()
    return send_file(
        made.path,
        mimetype="application/zip",
        as_attachment=True,
        download_name=made.name,
        max_age=300,
    )


@bp.get("/pbem.whl")
def stable() -> Any:
    """Always the running version (pip itself needs the full name, so pages give that)."""
    return redirect(url_for("download.wheel", name=wheel_name(version())), code=302)
