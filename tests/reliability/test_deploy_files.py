"""The deploy files parse: systemd units verify; the compose file, where docker compose exists.
And the application never runs as the tables' owner: only the migrate step does."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.reliability

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(sys.executable).parent.parent


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_systemd_units_verify(tmp_path):
    for unit in (ROOT / "deploy" / "systemd").glob("*.service"):
        # point the units at this checkout, as an install under /srv/pbem would be
        text = (
            unit.read_text().replace("/srv/pbem/.venv", str(VENV)).replace("/srv/pbem", str(ROOT))
        )
        (tmp_path / unit.name).write_text(text)
    result = subprocess.run(
        ["systemd-analyze", "verify", *map(str, tmp_path.glob("*.service"))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_the_compose_file_parses(tmp_path):
    docker = shutil.which("docker")
    if (
        docker is None
        or subprocess.run(
            [docker, "compose", "version"], capture_output=True, check=False
        ).returncode
        != 0
    ):
        pytest.skip("no docker compose on this machine")
    env = tmp_path / ".env"
    env.write_text("POSTGRES_PASSWORD=x\nPOSTGRES_APP_PASSWORD=y\nMAIL_DOMAIN=example.org\n")
    (tmp_path / "pbem.env").write_text("PBEM_SECRET_KEY=x\n")
    shutil.copy(ROOT / "deploy" / "docker-compose.yml", tmp_path / "docker-compose.yml")
    result = subprocess.run(
        [docker, "compose", "-f", str(tmp_path / "docker-compose.yml"), "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_the_gunicorn_config_names_the_app_and_the_redacting_logger():
    text = (ROOT / "deploy" / "gunicorn.conf.py").read_text()
    assert 'wsgi_app = "pbem.web:create_app()"' in text
    assert "pbem.web.redact.GunicornLogger" in text


def test_only_the_migrate_step_connects_as_the_owner():
    """The web app, the scheduler and the receiver connect as the granted role, which
    cannot alter the logs; the owner's password reaches the migrate step and the database
    alone (docs/deploy.md, "The application's database role")."""
    compose = (ROOT / "deploy" / "docker-compose.yml").read_text()
    services = compose.split("\nservices:\n")[1]
    blocks = dict(  # each service's lines, by name (a name is indented by two spaces)
        (block.split(":", 1)[0].strip(), block) for block in re.split(r"\n  (?=\S)", services)
    )
    assert "pbem_app:${POSTGRES_APP_PASSWORD}" in compose.split("\nservices:\n")[0]
    assert "pbem:${POSTGRES_PASSWORD}@db" in blocks["migrate"]
    assert "PBEM_DATABASE_APP_ROLE: pbem_app" in blocks["migrate"]
    for app in ("web", "scheduler", "inbound"):
        assert "POSTGRES_PASSWORD" not in blocks[app] and "environment" not in blocks[app]
    assert "env_file: .env" not in compose  # .env holds the owner's password
    entrypoint = (ROOT / "deploy" / "entrypoint.sh").read_text()
    assert "migrate) exec pbem db upgrade" in entrypoint
    assert entrypoint.count("db upgrade") == 1

    units = {u.stem: u.read_text() for u in (ROOT / "deploy" / "systemd").glob("*.service")}
    assert "User=pbem_owner" in units["pbem-migrate"]
    assert "pbem db upgrade --grant pbem" in units["pbem-migrate"]
    for name in ("pbem-web", "pbem-scheduler", "pbem-inbound"):
        assert "User=pbem\n" in units[name] and "db upgrade" not in units[name]
        assert "Requires=pbem-migrate.service" in units[name]
        assert "pbem-migrate.service" in units[name].split("After=", 1)[1].split("\n", 1)[0]
