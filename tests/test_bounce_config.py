"""PBEM_BOUNCE_ADDRESS (README, settings; docs/deploy.md, "Bounces"): by default ``bounce@``
the reply address's domain; one plain address, never the reply address itself."""

from __future__ import annotations

import os

import pytest

from pbem.config import ConfigError, from_env


@pytest.fixture
def environ(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for key in list(os.environ):
        if key.startswith("PBEM_"):
            monkeypatch.delenv(key)

    def set_env(**values: str) -> None:
        for k, v in values.items():
            monkeypatch.setenv(k, v)

    return set_env


def test_the_default_is_bounce_at_the_reply_domain(environ):
    environ(PBEM_MAIL_FROM="Jaipur <jaipur@example.org>", PBEM_REPLY_ADDRESS="play@in.example.org")
    config = from_env()
    assert config.bounce_address == "bounce@in.example.org"
    assert config.bounce_to("12-abc") == "bounce+12-abc@in.example.org"


def test_a_bounce_address_of_ones_own(environ):
    environ(PBEM_BOUNCE_ADDRESS="errors@example.org")
    assert from_env().bounce_to("7-x") == "errors+7-x@example.org"


@pytest.mark.parametrize(
    "value",
    [
        "Jaipur <bounce@example.org>",
        "bounce@example.org, other@example.org",
        "bounce+x@example.org",
        "Bounce@example.org",
        "bounce",
        "bounce@exa mple.org",
        "bounce@example.org\r\nBcc: x@example.org",
        "play@example.org",  # the reply address
    ],
)
def test_anything_but_one_plain_address_is_refused(environ, value):
    environ(PBEM_MAIL_FROM="Jaipur <jaipur@example.org>", PBEM_BOUNCE_ADDRESS=value)
    with pytest.raises(ConfigError, match="PBEM_BOUNCE_ADDRESS"):
        from_env()
