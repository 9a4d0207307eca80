"""Production refuses to start with development settings."""

from __future__ import annotations

import pytest

from pbem.config import ConfigError, from_env

PROD = {
    "PBEM_ENV": "production",
    "PBEM_SECRET_KEY": "k" * 64,
    "PBEM_BASE_URL": "https://jaipur.example.org",
    "PBEM_DATABASE_URL": "sqlite://",
}


@pytest.fixture
def environ(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for key in list(__import__("os").environ):
        if key.startswith("PBEM_"):
            monkeypatch.delenv(key)

    def set_env(**values: str) -> None:
        for k, v in values.items():
            monkeypatch.setenv(k, v)

    return set_env


def test_production_needs_a_secret_key(environ):
    environ(**{**PROD, "PBEM_SECRET_KEY": ""})
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY"):
        from_env()


@pytest.mark.parametrize("backend", ["console", "file"])
def test_production_refuses_the_development_mail_backends(environ, backend):
    environ(**PROD, PBEM_MAIL_BACKEND=backend)
    with pytest.raises(ConfigError, match="for development"):
        from_env()


def test_production_needs_an_https_base_url(environ):
    environ(**{**PROD, "PBEM_BASE_URL": "http://jaipur.example.org"})
    with pytest.raises(ConfigError, match="https"):
        from_env()


def test_a_sound_production_config_and_its_headers(environ):
    environ(**PROD)
    config = from_env()
    assert config.env == "production" and config.mail_backend == "smtp"
    from pbem.services.core.env import Env
    from pbem.store import migrate
    from pbem.store.db import Database
    from pbem.web import create_app

    db = Database("sqlite://")
    migrate.upgrade(db.engine)
    app = create_app(env=Env(config=config, db=db))
    assert app.config["SESSION_COOKIE_SECURE"] and app.config["SESSION_COOKIE_HTTPONLY"]
    response = app.test_client().get("/")
    assert "unsafe-inline" not in response.headers["Content-Security-Policy"]
    assert "max-age" in response.headers["Strict-Transport-Security"]
    assert app.test_client().get("/dev/inbox").status_code == 404


def test_bad_settings_name_the_variable(environ):
    environ(PBEM_ENV="staging")
    with pytest.raises(ConfigError, match="PBEM_ENV"):
        from_env()
    environ(PBEM_ENV="development", PBEM_SMTP_TLS="maybe")
    with pytest.raises(ConfigError, match="PBEM_SMTP_TLS"):
        from_env()


def test_every_setting_of_the_scheduler_cache_and_role_is_read_here(environ):
    """config.py is the one reader of the environment: what the scheduler, the replay cache
    and `pbem db upgrade` used to read for themselves comes in the Config."""
    environ(
        PBEM_DELIVER_EVERY="1",
        PBEM_PURGE_EVERY="7",
        PBEM_REPLAY_CACHE="0",
        PBEM_DATABASE_APP_ROLE="pbem_app",
        PBEM_BASE_URL="http://example.test",
    )
    config = from_env()
    assert (config.every.deliver, config.every.clock, config.every.purge) == (1, 60, 7)
    assert config.replay_cache == 0 and config.database_app_role == "pbem_app"
    assert config.base_url_given
    environ(PBEM_CLOCK_EVERY="soon")
    with pytest.raises(ConfigError, match="PBEM_CLOCK_EVERY"):
        from_env()


def test_nothing_else_in_the_package_reads_the_environment():
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "pbem"
    readers = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name != "config.py"
        and any(word in path.read_text() for word in ("os.environ", "getenv("))
    ]
    assert readers == []


def test_the_computers_jobs_run_every_2_and_60_seconds_unless_told(environ):
    """The quick job keeps the computer's reply within seconds; the sweep catches the rest."""
    config = from_env()
    assert (config.every.computer, config.every.computer_sweep) == (2, 60)
    environ(PBEM_COMPUTER_EVERY="5", PBEM_COMPUTER_SWEEP_EVERY="120")
    config = from_env()
    assert (config.every.computer, config.every.computer_sweep) == (5, 120)


def test_the_retention_periods_are_90_days_unless_told(environ):
    config = from_env()
    assert (config.retention.mail_days, config.retention.client_days) == (90, 90)
    assert config.every.retention == 3600
    environ(PBEM_RETENTION_MAIL_DAYS="30", PBEM_RETENTION_CLIENT_DAYS="400")
    config = from_env()
    assert (config.retention.mail_days, config.retention.client_days) == (30, 400)
    for bad in ("0", "-5", "soon"):
        environ(PBEM_RETENTION_CLIENT_DAYS=bad)
        with pytest.raises(ConfigError, match="PBEM_RETENTION_CLIENT_DAYS"):
            from_env()


def test_the_reply_grace_is_24_hours_unless_told(environ):
    """docs/deploy.md, README: a spent reply address is answered 24 hours, then refused."""
    assert from_env().reply_grace_hours == 24
    assert from_env().limits.refusals_per_seat == "5 per hour; 20 per day"  # as documented
    environ(PBEM_REPLY_GRACE_HOURS="2")
    assert from_env().reply_grace_hours == 2
    for bad in ("-1", "soon"):
        environ(PBEM_REPLY_GRACE_HOURS=bad)
        with pytest.raises(ConfigError, match="PBEM_REPLY_GRACE_HOURS"):
            from_env()
    environ(PBEM_REPLY_GRACE_HOURS="24", PBEM_LIMIT_REFUSALS_PER_SEAT="lots")
    with pytest.raises(ConfigError, match="PBEM_LIMIT_REFUSALS_PER_SEAT"):
        from_env()


def test_the_scheduler_lease_and_the_mail_recovery_time_are_settings(environ):
    config = from_env()
    assert (config.lease_seconds, config.every.lease_renew) == (30, 10)
    assert config.mail_recover_after == 600
    environ(PBEM_LEASE_SECONDS="6", PBEM_LEASE_RENEW_EVERY="2", PBEM_MAIL_RECOVER_AFTER="90")
    config = from_env()
    assert (config.lease_seconds, config.every.lease_renew, config.mail_recover_after) == (6, 2, 90)
    environ(PBEM_LEASE_RENEW_EVERY="6")  # renewed no sooner than it lapses: refused
    with pytest.raises(ConfigError, match="PBEM_LEASE_RENEW_EVERY"):
        from_env()
    environ(PBEM_LEASE_RENEW_EVERY="2", PBEM_MAIL_RECOVER_AFTER="0")
    with pytest.raises(ConfigError, match="PBEM_MAIL_RECOVER_AFTER"):
        from_env()


def test_the_hold_of_a_your_turn_mail_is_three_minutes_unless_told(environ):
    assert from_env().turn_mail_hold == 180
    environ(PBEM_TURN_MAIL_HOLD="0")  # sent at once, as before the hold
    assert from_env().turn_mail_hold == 0
    environ(PBEM_TURN_MAIL_HOLD="600")
    assert from_env().turn_mail_hold == 600
    for bad in ("-1", "soon"):
        environ(PBEM_TURN_MAIL_HOLD=bad)
        with pytest.raises(ConfigError, match="PBEM_TURN_MAIL_HOLD"):
            from_env()


def test_the_inbound_size_limit_and_greeting_name_are_settings(environ):
    """README's table: PBEM_INBOUND_MAX_KB (256), PBEM_INBOUND_HOSTNAME (the machine's name)."""
    config = from_env()
    assert config.inbound_max_bytes == 256 * 1024 and config.inbound_hostname == ""
    environ(PBEM_INBOUND_MAX_KB="1024", PBEM_INBOUND_HOSTNAME="mx.example.org")
    config = from_env()
    assert config.inbound_max_bytes == 1024 * 1024 and config.inbound_hostname == "mx.example.org"
    for bad in ("0", "-1", "lots"):
        environ(PBEM_INBOUND_MAX_KB=bad)
        with pytest.raises(ConfigError, match="PBEM_INBOUND_MAX_KB"):
            from_env()
    environ(PBEM_INBOUND_MAX_KB="256")
    # a greeting is a line of the SMTP conversation: no CR/LF, space, bracket or comma
    for bad in ("mx.example.org\r\n250 forged", "[127.0.0.1]", "a b", "a,b", "-mx", "x" * 300):
        environ(PBEM_INBOUND_HOSTNAME=bad)
        with pytest.raises(ConfigError, match="PBEM_INBOUND_HOSTNAME"):
            from_env()
