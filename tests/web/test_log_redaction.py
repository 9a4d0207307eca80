"""No bearer secret in any log (issue 31): every route with a secret, from the URL map;
every record of the process, whatever logger made it; the nginx example's log format."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest

from pbem import redact
from pbem.web.inputs import Secret

ROOT = Path(__file__).resolve().parents[2]
SEAT = "WyJkOGZtcTZoOGE3IiwxLDFd.mqBM7VDU_KnzLoLtt5m0sYQV0Ec"
SIGN_IN = "Qm9ndXNTaWduSW5Ub2tlbl9vZl80M19jaGFyYWN0ZXI"  # token_urlsafe(32): no dot
REPLY = "d8fmq6h8a7-1-4-1-rj6xjf2if4uooayxzmxd76tn"


def secret_rules(app) -> list:
    return [
        rule
        for rule in app.url_map.iter_rules()
        if any(isinstance(c, Secret) for c in rule._converters.values())
    ]


def sample_path(app, rule, secret: str) -> str:
    values = {}
    for name, converter in rule._converters.items():
        values[name] = (
            secret if isinstance(converter, Secret) else ("3" if name == "n" else "abcd1234")
        )
    return app.url_map.bind("pbem.test").build(rule.endpoint, values)


def test_every_route_with_a_secret_is_masked(app):
    rules = secret_rules(app)
    prefixes = {rule.rule.split("<", 1)[0] for rule in rules}
    assert {"/s/", "/signin/"} <= prefixes  # the seat links and the sign-in links, at least
    for rule in rules:
        for secret in (SEAT, SIGN_IN):
            path = sample_path(app, rule, secret)
            for line in (
                f'127.0.0.1 - - "GET {path} HTTP/1.1" 200 -',
                f'"POST {path}?lang=fa HTTP/1.1" 303',
                f"Referer: http://pbem.test{path}",
            ):
                masked = redact.redact(line)
                assert secret not in masked and redact.MASK in masked, (rule.rule, masked)


def test_a_route_that_takes_a_token_takes_it_as_a_secret(app):
    """A new route written as ``/x/<token>`` (the plain converter) would not be masked."""
    for rule in app.url_map.iter_rules():
        for name, converter in rule._converters.items():
            if re.search(r"token|secret|key|code", name):
                assert isinstance(converter, Secret), rule.rule


@pytest.fixture
def captured():
    """What the root logger writes, formatted as a log file would be."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)
    yield stream
    root.removeHandler(handler)
    root.setLevel(level)


def test_every_record_of_the_process_is_redacted(app, captured):
    """Any logger (the app's, werkzeug's, gunicorn's, aiosmtpd's), any argument, any traceback."""
    assert app  # the app installs the redaction and adds its routes
    logging.getLogger("werkzeug").info(
        '%s - - "%s" %s', "127.0.0.1", f"GET /s/{SEAT} HTTP/1.1", 200
    )
    logging.getLogger("gunicorn.access").info(
        '%(h)s "%(r)s" %(s)s', {"h": "10.0.0.1", "r": f"GET /signin/{SIGN_IN} HTTP/1.1", "s": "200"}
    )
    logging.getLogger("mail.log").info(
        "%r >> %r", ("127.0.0.1", 4), f"RCPT TO:<play+{REPLY}@pbem.test>"
    )
    logging.getLogger("pbem.web").info("Authorization: Bearer %s", SIGN_IN)
    try:
        raise ValueError(f"no seat for {SEAT}")
    except ValueError:
        logging.getLogger("pbem.web").exception("Exception on /s/%s/move [POST]", SEAT)
    written = captured.getvalue()
    for secret in (SEAT, SIGN_IN, REPLY):
        assert secret not in written, written
    assert written.count(redact.MASK) >= 6, written
    assert "play+[token]@pbem.test" in written and "ValueError: no seat for [token]" in written


def test_the_nginx_example_logs_no_secret(app):
    """The example's ``map`` of ``$request_uri``, read as nginx does (its first regular
    expression that matches), turns every secret route's path into a masked one, and
    both of its servers log in that format."""
    conf = (ROOT / "deploy" / "nginx-pbem.conf").read_text()
    block = re.search(r"map \$request_uri \$pbem_loggable_uri \{(.*?)\n\}", conf, re.S)
    assert block is not None
    entries = re.findall(r'^\s*"~([^"]+)"\s+"([^"]+)";', block.group(1), re.M)
    assert entries

    def logged(uri: str) -> str:
        for pattern, value in entries:
            m = re.match(re.sub(r"\(\?<(\w+)>", r"(?P<\1>", pattern), uri)
            if m:
                return re.sub(r"\$\{?(\w+)\}?", lambda v, m=m: m.group(v.group(1)) or "", value)
        return uri

    for rule in secret_rules(app):
        for secret in (SEAT, SIGN_IN):
            path = sample_path(app, rule, secret)
            for uri in (path, path + "?lang=fa"):
                assert secret not in logged(uri) and redact.MASK in logged(uri), (uri, logged(uri))
    assert logged("/g/abcd1234?lang=el") == "/g/abcd1234?lang=el"
    servers = conf.split("\nserver {")[1:]
    assert len(servers) == 2
    assert all("access_log /var/log/nginx/pbem.access.log pbem;" in s for s in servers)
    assert all("error_log /var/log/nginx/pbem.error.log crit;" in s for s in servers)
    assert "$request_uri" not in conf.split("log_format", 1)[1].split(";", 1)[0]


@pytest.mark.parametrize(
    "line",
    [
        f">> b'RCPT TO:<\"play+{REPLY}\"@localhost>'",  # a quoted local part
        f">> b'RCPT TO:<play+{REPLY}>'",  # no domain
        f'RCPT TO:<"play+{REPLY}"@pbem.test> NOTIFY=NEVER',
        f"a bare reply token {REPLY} in a line",
        f"PLAY+{REPLY.upper()}@PBEM.TEST",
    ],
)
def test_a_reply_address_in_any_form_is_masked(line):
    masked = redact.redact(line)
    assert REPLY not in masked.lower() and "rj6xjf2if4" not in masked.lower()
    assert redact.MASK in masked


def test_a_hex_digest_in_a_log_line_is_left_alone():
    digest = "a3f2" * 16
    assert redact.redact(f"chain {digest}") == f"chain {digest}"
