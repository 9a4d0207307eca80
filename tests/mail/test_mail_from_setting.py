"""PBEM_MAIL_FROM is read at start as exactly one mailbox, and the From header of every
mail then carries that one mailbox, its display name encoded as it must be."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime

import pytest

from pbem.config import ConfigError, from_env
from pbem.mail.delivery import build_message
from pbem.store.models import OutboxMessage


@pytest.fixture
def environ(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for key in list(__import__("os").environ):
        if key.startswith("PBEM_"):
            monkeypatch.delenv(key)
    return lambda value: monkeypatch.setenv("PBEM_MAIL_FROM", value)


@pytest.mark.parametrize(
    "value",
    [
        "Jaipur, by mail <jaipur@example.org>",  # the comma makes two mailboxes
        "jaipur@example.org, other@example.org",
        "Jaipur <jaipur@example.org>\r\nBcc: someone@example.net",
        "Jaipur <jaipur@example.org>\nX: y",
        "=?utf-8?q?J=0D=0ABcc:_x@example.net?= <jaipur@example.org>",
        "Jaipur by mail <jaipur>",
        "jaipur",
        "",
    ],
)
def test_anything_but_one_mailbox_stops_the_start_naming_the_setting(environ, value):
    environ(value)
    with pytest.raises(ConfigError, match="PBEM_MAIL_FROM"):
        from_env()


def _from_header(mail_from: str) -> email.message.EmailMessage:
    row = OutboxMessage(
        message_id="<m.1@example.org>",
        kind="sign_in",
        to_addr="ann@example.net",
        to_name="Ann",
        subject="s",
        text_body="t",
        html_body="<p>t</p>",
        headers={},
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    raw = build_message(row, mail_from).as_bytes()
    return email.message_from_bytes(raw, policy=email.policy.default)


@pytest.mark.parametrize(
    ("value", "name", "addr"),
    [
        ('"Jaipur, by mail" <jaipur@example.org>', "Jaipur, by mail", "jaipur@example.org"),
        ("Jaipur by mail <jaipur@example.org>", "Jaipur by mail", "jaipur@example.org"),
        ("Τζαϊπούρ, ταχυδρομικώς <jaipur@example.org>".replace(",", ""), None, None),
        ("jaipur@example.org", "", "jaipur@example.org"),
    ],
)
def test_the_from_header_is_always_that_one_mailbox(environ, value, name, addr):
    environ(value)
    config = from_env()
    parsed = _from_header(config.mail_from)
    (box,) = parsed["From"].addresses
    assert box.addr_spec == (addr or "jaipur@example.org")
    assert box.display_name == (name if name is not None else value.split(" <")[0])
    assert config.reply_address == "play@example.org"
