"""The deploy files parse: systemd units verify; the compose file, where docker compose exists."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
    env.write_text("POSTGRES_PASSWORD=x\nMAIL_DOMAIN=example.org\nPBEM_SECRET_KEY=x\n")
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
