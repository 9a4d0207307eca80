"""`./run --port 5077`: the demo's printed links and its first mails name port 5077."""

from __future__ import annotations

import re

from click.testing import CliRunner
from flask import Flask
from sqlalchemy import select

from pbem.cli import main


def _env(monkeypatch, tmp_path, fresh_database) -> str:
    url = fresh_database()
    monkeypatch.setenv("PBEM_DATABASE_URL", url)
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("PBEM_ENV", "development")
    monkeypatch.delenv("PBEM_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(main, ["db", "upgrade"]).exit_code == 0
    return url


def _mail_bodies(url: str) -> list[str]:
    from pbem.store.db import Database
    from pbem.store.models import OutboxMessage

    database = Database(url)
    try:
        with database.read() as session:
            return [m.text_body or "" for m in session.scalars(select(OutboxMessage))]
    finally:
        database.dispose()


def _links(text: str) -> set[str]:
    return set(re.findall(r"http://[\w.\-]+:\d+", text))


def test_serve_demo_on_another_port_links_there(monkeypatch, tmp_path, fresh_database):
    url = _env(monkeypatch, tmp_path, fresh_database)
    served = []
    monkeypatch.setattr(Flask, "run", lambda self, **kw: served.append(kw))
    result = CliRunner().invoke(
        main, ["serve", "--demo", "--port", "5077", "--no-mail"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert served == [{"host": "127.0.0.1", "port": 5077, "debug": False, "use_reloader": False}]
    assert "Ada's seat:" in result.output
    assert _links(result.output) == {"http://127.0.0.1:5077"}, result.output
    bodies = [b for b in _mail_bodies(url) if "http://" in b]
    assert bodies and all(_links(b) == {"http://127.0.0.1:5077"} for b in bodies)


def test_demo_alone_takes_the_port_too(monkeypatch, tmp_path, fresh_database):
    _env(monkeypatch, tmp_path, fresh_database)
    result = CliRunner().invoke(main, ["demo", "--port", "5077"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert _links(result.output) == {"http://127.0.0.1:5077"}, result.output
