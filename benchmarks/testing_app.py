"""The app a benchmark drives in-process: the testing configuration on a database of
its own, migrated, and the Flask app with its services and a test client."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def testing_app(url: str, folder: Path, secret: str) -> tuple[Any, Any, Any]:
    """(app, its services' ``Env``, a test client) on ``url``, migrated first."""
    os.environ.update(
        PBEM_DATABASE_URL=url,
        PBEM_ENV="testing",
        PBEM_SECRET_KEY=secret,
        PBEM_INSTANCE_PATH=str(folder),
    )
    from pbem.store import migrate
    from pbem.store.db import make_engine
    from pbem.web import create_app

    engine = make_engine(url)
    migrate.upgrade(engine)
    engine.dispose()
    app = create_app()
    return app, app.extensions["pbem"], app.test_client()
