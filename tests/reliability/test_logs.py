"""No bearer secret in any log a real server writes (issue 31).

A whole session against gunicorn (deploy/gunicorn.conf.py) and ``pbem inbound``: sign in
by a mailed link, open a seat page and its replay, play through the API, reply by mail
(and mail an address that is no good), then read every log they wrote for each secret.
And the development server, ``pbem serve``, whose request log is werkzeug's.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import smtplib
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.services.play import game_pages, new_games
from pbem.store.models import OutboxMessage
from tests.mail.conftest import free_port

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def wait_for_port(port: int, proc: subprocess.Popen, log: Path) -> None:
    for _ in range(150):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    proc.kill()
    pytest.fail(log.read_text(errors="replace")[-2000:] or "no start")


def start(args: list[str], environ: dict[str, str], log: Path, cwd: Path) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "pbem", *args],
            env=environ,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


class Browser:
    """A client with cookies: enough to sign in through the forms."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def get(self, path: str) -> str:
        try:
            with self.opener.open(self.base + path, timeout=10) as response:
                return response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.read().decode(errors="replace")

    def post(self, path: str, form: dict[str, str], page: str) -> str:
        (csrf,) = CSRF.findall(page)[:1]
        data = urllib.parse.urlencode({**form, "csrf_token": csrf}).encode()
        with self.opener.open(self.base + path, data=data, timeout=10) as response:
            return response.read().decode()


def api(base: str, path: str, token: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        base + path,
        method="POST" if body else "GET",
        data=json.dumps(body).encode() if body else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def sign_in_token(env, email: str) -> str:
    with env.db.read() as session:
        bodies = session.scalars(
            select(OutboxMessage.text_body)
            .where(OutboxMessage.to_addr == email)
            .order_by(OutboxMessage.id.desc())
        ).all()
    for body in bodies:
        found = re.search(r"/signin/([A-Za-z0-9_\-]+)", body or "")
        if found:
            return found.group(1)
    raise AssertionError(f"no sign-in mail to {email}")


def reply_address(env, public_id: str, seat: int, n: int) -> tuple[str, str]:
    token = env.links.reply_token(public_id, seat, n, 1)
    return token, f"play+{token}@pbem.test"


def read_logs(paths: list[Path], marker: str, deadline: float = 10) -> str:
    """Every log's text, once ``marker`` shows (a server writes after it answers)."""
    end = time.monotonic() + deadline
    while True:
        text = "\n".join(p.read_text(errors="replace") for p in paths if p.exists())
        if marker in text or time.monotonic() > end:
            return text
        time.sleep(0.05)


def test_a_whole_session_leaves_no_secret_in_any_log(start_gunicorn, env, database_url, tmp_path):
    server = start_gunicorn(1)
    base = server.base
    smtp_port = free_port()
    inbound_log = tmp_path / "inbound.log"
    inbound = start(
        ["inbound", "--port", str(smtp_port)],
        {**server.environ, "PBEM_REPLY_ADDRESS": "play@pbem.test"},
        inbound_log,
        tmp_path,
    )
    try:
        wait_for_port(smtp_port, inbound, inbound_log)
        created = new_games.create_game(
            env,
            (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test")),
        )
        seat_tokens = created.tokens
        secrets = list(seat_tokens)

        # sign in by the mailed link: the request, the link's page, its button
        browser = Browser(base)
        browser.post("/signin", {"email": "a@example.test"}, browser.get("/signin"))
        link = sign_in_token(env, "a@example.test")
        secrets.append(link)
        my_games = browser.post(f"/signin/{link}", {}, browser.get(f"/signin/{link}"))
        assert "a@example.test" in my_games or "A" in my_games

        # seat pages, a replay, a page that is not there, through the API a move
        for token in seat_tokens:
            browser.get(f"/s/{token}")
            browser.get(f"/s/{token}/replay?lang=fa")
            browser.get(f"/s/{token}/no-such-page")
        seat = game_pages.public_page(env, created.public_id).view.table.to_move
        legal = api(base, "/api/seat/legal-moves", seat_tokens[seat])["moves"]
        assert api(base, "/api/seat/moves", seat_tokens[seat], {"n": 1, "move": legal[0]})["n"] == 1

        # a reply by mail to the address of move 2, and mail to the spent one of move 1
        seat = game_pages.public_page(env, created.public_id).view.table.to_move
        good_token, good = reply_address(env, created.public_id, seat, 2)
        spent_token, spent = reply_address(env, created.public_id, 1 - seat, 1)
        secrets += [good_token, spent_token]
        legal = game_pages.legal_moves(env, seat_tokens[seat])
        mail = EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = "a@example.test", good, "Re: Jaipur"
        mail.set_content(f"{legal[0]}\ngood luck")
        late = EmailMessage()
        late["From"], late["To"], late["Subject"] = "b@example.test", spent, "Re: Jaipur"
        late.set_content("camels")  # answered: the game has moved on
        forged = f"play+{spent_token[:-1]}{'a' if spent_token[-1] != 'a' else 'b'}@pbem.test"
        secrets.append(forged.split("+")[1].split("@")[0])
        with smtplib.SMTP("127.0.0.1", smtp_port) as smtp:
            smtp.send_message(mail)
            smtp.send_message(late)
            smtp.ehlo()
            smtp.mail("mallory@evil.test")
            assert smtp.rcpt(forged)[0] == 550
            # a quoted local part (the same address, RFC 5321 4.1.2) and one with no domain
            assert smtp.docmd("RCPT", f'TO:<"play+{good_token}"@pbem.test>')[0] == 250
            assert smtp.docmd("RCPT", f"TO:<play+{good_token}>")[0] == 550
            smtp.rset()
        assert len(game_pages.public_page(env, created.public_id).entries) == 2  # the reply played
    finally:
        stop(inbound)
    logs = [server.log, server.errors, inbound_log]
    text = read_logs(logs, "/signin/[token]")
    for secret in secrets:
        assert secret not in text, (secret, text[-3000:])
    for masked in ("/s/[token]", "/signin/[token]", "play+[token]@pbem.test"):
        assert masked in text, (masked, text[-3000:])


def test_the_development_server_logs_no_secret(env, database_url, tmp_path):
    created = new_games.create_game(
        env, (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test"))
    )
    port = free_port()
    log = tmp_path / "serve.log"
    environ = {
        "PATH": "/usr/bin:/bin",
        "PBEM_DATABASE_URL": database_url,
        "PBEM_ENV": "testing",
        "PBEM_SECRET_KEY": "test-secret-key",
        "PBEM_INSTANCE_PATH": str(tmp_path),
        "PBEM_MAIL_BACKEND": "file",
    }
    proc = start(["serve", "--port", str(port), "--no-mail"], environ, log, tmp_path)
    sign_in = "Qm9ndXNTaWduSW5Ub2tlbl9vZl80M19jaGFyYWN0ZXI"
    try:
        wait_for_port(port, proc, log)
        browser = Browser(f"http://127.0.0.1:{port}")
        for token in created.tokens:
            browser.get(f"/s/{token}")
            browser.get(f"/s/{token}/audit/1")
        browser.get(f"/signin/{sign_in}")
        api(f"http://127.0.0.1:{port}", "/api/seat", created.tokens[0])
    finally:
        stop(proc)
    text = log.read_text(errors="replace")
    for secret in (*created.tokens, sign_in):
        assert secret not in text, text[-3000:]
    assert "/s/[token]" in text and "/signin/[token]" in text
