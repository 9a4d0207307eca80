"""Rate limits counted by ``limits`` in the database: shared by every worker, on the faked clock."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from pbem.config import ConfigError, Limits, from_env
from pbem.services.core import limits
from pbem.services.core.access import Client
from pbem.services.core.env import Env
from pbem.services.play import link_recovery
from pbem.store.db import Database
from pbem.store.models import RateLimit
from tests.mail.play import new_game


def test_two_workers_with_their_own_connections_share_one_window(env, database_url):
    env.config = env.config.with_(limits=Limits(sign_in_per_client="5 per 10 minutes"))
    other_db = Database(database_url)  # another gunicorn worker: its own engine and pool
    try:
        other = Env(config=env.config, db=other_db, clock=env.clock)
        answers = [
            limits.allowed(worker, "sign_in_per_client", "10.9.9.9")
            for worker in (env, other) * 4
        ]
        assert answers == [True] * 5 + [False] * 3
    finally:
        other_db.dispose()


def test_concurrent_hits_are_counted_once_each(env):
    env.config = env.config.with_(limits=Limits(uploads_per_client="1000 per hour"))
    threads = [
        threading.Thread(target=lambda: limits.hit(env, "uploads_per_client", "10.8.8.8"))
        for _ in range(12)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with env.db.read() as session:
        assert session.scalar(select(func.sum(RateLimit.hits))) == 12


def test_the_window_reopens_and_ended_windows_are_purged(env):
    env.config = env.config.with_(limits=Limits(link_requests_per_client="2 per 10 minutes"))
    game = new_game(env)
    client = Client(ip="10.7.7.7")
    link_recovery.request_link(env, game, "nobody@example.test", client)
    link_recovery.request_link(env, game, "nobody@example.test", client)
    with pytest.raises(limits.TooMany) as refused:
        link_recovery.request_link(env, game, "nobody@example.test", client)
    assert 0 < refused.value.retry_after <= 600 and refused.value.status == 429
    env.clock.advance(minutes=10, seconds=1)
    link_recovery.request_link(env, game, "nobody@example.test", client)  # a new window
    env.clock.advance(days=2)
    assert limits.purge(env) >= 1
    with env.db.read() as session:
        assert session.scalar(select(func.count()).select_from(RateLimit)) == 0


def test_no_address_or_ip_is_stored(env):
    limits.hit(env, "sign_in_per_address", "secret.person@example.test")
    with env.db.read() as session:
        keys = session.scalars(select(RateLimit.key)).all()
    assert keys and not any("secret" in k or "example" in k for k in keys)


def test_several_windows_in_one_limit_and_none_lifts_it(env):
    env.config = env.config.with_(limits=Limits(games_per_client="3 per minute; 4 per day"))
    hits = []
    for _ in range(3):
        hits += [limits.allowed(env, "games_per_client", "10.6.6.6") for _ in range(2)]
        env.clock.advance(minutes=2)
    assert hits == [True, True, True, True, False, False]
    env.config = env.config.with_(limits=Limits(games_per_client="none"))
    assert all(limits.allowed(env, "games_per_client", "10.6.6.6") for _ in range(10))
    assert limits.allowed(env, "games_per_client", None)  # nobody to count (the CLI)


def test_limits_are_settings(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PBEM_LIMIT_GAMES_PER_CLIENT", "2 per hour")
    monkeypatch.setenv("PBEM_UPLOAD_DAYS", "3")
    config = from_env()
    assert config.limits.games_per_client == "2 per hour" and config.upload_days == 3
    assert config.limits.sign_in_per_address == Limits().sign_in_per_address
    monkeypatch.setenv("PBEM_LIMIT_GAMES_PER_CLIENT", "often")
    with pytest.raises(ConfigError, match="PBEM_LIMIT_GAMES_PER_CLIENT"):
        from_env()
