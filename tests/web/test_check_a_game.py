"""Every page and mail that explains the deal says what was committed, and its instructions
for checking a game work as written: the server offers its own package (pbem.wheel)."""

from __future__ import annotations

import base64
import hashlib
import html
import io
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from pbem import wheel
from pbem.engine import rng
from pbem.services.core import access
from pbem.services.play import game_pages, moves, new_games
from pbem.services.records import game_records
from tests.ai.games import computer_game
from tests.helpers import mails
from tests.mail.play import new_game

#: What the download page says the checker installs besides itself, and nothing else.
CHECKER_NEEDS = ("Requires-Dist: click", "Requires-Dist: networkx")
COMMANDS = re.compile(r'<pre class="mail command" dir="ltr">(python3 -m venv .*?)</pre>', re.S)
SEED_CHECK = re.compile(r'<pre class="mail command" dir="ltr">(python3 -c .*?)</pre>', re.S)


def finished_mixed_game(env, moves_first: int = 12) -> str:
    """A game started as on the web: both seats add their bytes, a few moves, a resignation."""
    created = new_games.create_game(
        env,
        # in English whatever an earlier test chose for these addresses' accounts
        (
            new_games.PlayerIn("Ada", "ada@example.test", "en"),
            new_games.PlayerIn("Bo O'Neil", "bo@example.test", "en"),
        ),
        await_players=True,
    )
    for token in created.tokens:
        new_games.accept(env, token, secrets.token_bytes(32), access.Client())
    rnd = random.Random(5)
    for n in range(1, moves_first + 1):
        token = next(t for t in created.tokens if game_pages.legal_moves(env, t))
        moves.submit_move(
            env, token, n, rnd.choice(game_pages.legal_moves(env, token)), access.Client()
        )
    token = next(t for t in created.tokens if game_pages.legal_moves(env, t))
    moves.resign(env, token, moves_first + 1, access.Client())
    return created.public_id


def _seeds(env, public_id: str) -> dict:
    return game_records.operator_record(env, public_id)


def _run(command: str, cwd: Path | None = None) -> list[str]:
    done = subprocess.run(command, shell=True, capture_output=True, text=True, cwd=cwd, check=True)
    return done.stdout.split()


def test_a_mixed_game_says_the_commitment_is_of_the_server_seed(client, env):
    public_id = finished_mixed_game(env)
    data = _seeds(env, public_id)
    server, (c0, c1) = data["server_seed"], data["contributions"]
    assert (
        data["commitment"]
        == rng.commitment(bytes.fromhex(server))
        != rng.commitment(bytes.fromhex(data["seed"]))
    )

    page = client.get(f"/g/{public_id}").text
    for value in (server, c0, c1, data["seed"], data["commitment"]):
        assert value in page
    text = html.unescape(page)
    assert "The commitment is sha256 of the server's seed" in text
    assert '"jaipur/1/mix:" + Ada\'s contribution + ":" + Bo O\'Neil\'s contribution' in text
    assert "sha256 of the seed is" not in text and "pip install pbem" not in text
    # the one-line check shown on the page prints the commitment, then the seed
    check = html.unescape(SEED_CHECK.search(page).group(1))
    assert _run(check) == [data["commitment"], data["seed"]]
    # the commands name this instance's package, and the record by its download name
    commands = html.unescape(COMMANDS.search(page).group(1)).splitlines()
    assert commands == env.check_commands(f"jaipur-{public_id}.json")
    assert f"{env.config.base_url}/download/pbem-{wheel.version()}-py3-none-any.whl" in commands[1]

    for mail in mails(env, public_id, kind="game_over"):
        body = mail.text_body
        for value in (server, c0, c1, data["seed"], data["commitment"]):
            assert value in body
        assert "The commitment is sha256 of the server's seed" in body
        assert "sha256 of it is the commitment" not in body and "pip install pbem" not in body
        assert all(line in body for line in env.check_commands(f"jaipur-{public_id}.json"))
        assert f"{env.config.base_url}/download" in body
        assert "pbem-check/bin/pip install http://pbem.test/download/pbem-" in mail.html_body
    invitation = mails(env, public_id, seat=0, kind="invitation")[0].text_body
    assert data["commitment"] in invitation and server not in invitation
    assert "Its commitment, sha256(seed)" not in invitation
    assert "The commitment is sha256 of the server's seed" in invitation
    dealt = mails(env, public_id, seat=1, kind="dealt")[0].text_body
    assert c0 in dealt and c1 in dealt and "jaipur/1/mix:" in dealt

    audit = html.unescape(client.get(f"/g/{public_id}/audit/3").text)
    assert "The commitment is sha256 of the server's seed" in audit
    assert "pip install pbem" not in audit and "sha256(seed) is the commitment" not in audit
    assert f"pbem-check/bin/pbem verify jaipur-{public_id}-move-3.json" in audit
    evidence = client.get(f"/g/{public_id}/audit/3/evidence.json").get_json()
    assert "sha256(server_seed) = commitment" in evidence["evidence"]["note"]


def test_a_game_dealt_without_contributions_says_sha256_of_the_seed(client, env):
    public_id = new_game(env)
    running = html.unescape(client.get(f"/g/{public_id}").text)
    assert "Commitment to the game's seed:" in running
    assert "The commitment is sha256 of the game's seed" in running
    assert "server's seed" not in running.split('id="fair-deal"')[1].split("</section>")[0]
    token = game_pages.seat_tokens(env, public_id)[
        game_pages.public_page(env, public_id).view.table.to_move
    ]
    moves.resign(env, token, 1, access.Client())
    data = _seeds(env, public_id)
    page = client.get(f"/g/{public_id}").text
    assert _run(html.unescape(SEED_CHECK.search(page).group(1))) == [data["commitment"]]
    body = mails(env, public_id, seat=0, kind="game_over")[0].text_body
    assert "The commitment is sha256 of the game's seed" in body and data["seed"] in body


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def test_the_server_offers_the_code_it_runs_as_a_valid_wheel(client, env):
    name = f"pbem-{wheel.version()}-py3-none-any.whl"
    stable = client.get("/pbem.whl")
    assert stable.status_code == 302 and stable.headers["Location"].endswith(f"/download/{name}")
    served = client.get(f"/download/{name}")
    assert served.status_code == 200
    assert f"filename={name}" in served.headers["Content-Disposition"]
    archive = zipfile.ZipFile(io.BytesIO(served.data))
    info = f"pbem-{wheel.version()}.dist-info"
    record = archive.read(f"{info}/RECORD").decode().splitlines()
    listed = {line.rsplit(",", 2)[0]: line for line in record}
    assert set(listed) == set(archive.namelist())
    for entry, line in listed.items():
        if entry != f"{info}/RECORD":
            data = archive.read(entry)
            assert line == f"{entry},{_record_hash(data)},{len(data)}", entry
    # the running code, with the build's data folders and compiled catalogs
    package = Path(wheel.__file__).parent
    assert archive.read("pbem/wheel.py") == (package / "wheel.py").read_bytes()
    for needed in (
        "pbem/record_tools.py",
        "pbem/_data/templates/web/download.html",
        "pbem/_data/migrations/env.py",
        "pbem/translations/el/LC_MESSAGES/messages.mo",
        f"{info}/entry_points.txt",
    ):
        assert needed in listed, needed
    metadata = archive.read(f"{info}/METADATA").decode()
    assert "Requires-Dist: click" in metadata
    needs = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    # the checker's only needs (networkx recomputes a Swiss event's pairings); the server's
    # are extra
    assert "Requires-Dist: click>=8.1" in needs and "Requires-Dist: networkx>=3.2" in needs
    assert all("extra ==" in line for line in needs if not line.startswith(CHECKER_NEEDS))
    assert client.get(f"/download/{name}").data == served.data  # cached, and reproducible
    assert wheel.wheel_bytes() == served.data
    other = client.get("/download/pbem-0.0.1-py3-none-any.whl")
    assert other.status_code == 404 and name in other.text
    page = client.get("/download").text
    assert name in page and hashlib.sha256(served.data).hexdigest() in page


def _python_311(folder: Path) -> dict[str, str]:
    """PATH with a ``python3`` that is this interpreter's own base Python (3.11 or newer),
    as a player who has only Python would have it."""
    folder.mkdir()
    (folder / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    return {**environ, "PATH": f"{folder}{os.pathsep}{environ.get('PATH', '')}"}


@pytest.mark.slow
def test_following_the_game_page_installs_the_checker_and_the_record_holds(
    live_server, env, tmp_path
):
    """As a player would: read the finished game's page, download its record, type the
    commands the page shows into a shell in a fresh folder. About 8 s on the project's
    2-core machine (a venv, then pip installs the served wheel and click)."""
    public_id = finished_mixed_game(env, moves_first=20)
    page = urllib.request.urlopen(f"{live_server}/g/{public_id}", timeout=30).read().decode()
    record_link = re.search(r'href="(/g/[^"]+/record\.json)"', page).group(1)
    with urllib.request.urlopen(live_server + record_link, timeout=30) as answer:
        saved_as = re.search(r'filename="([^"]+)"', answer.headers["Content-Disposition"]).group(1)
        (tmp_path / saved_as).write_bytes(answer.read())
    evidence = urllib.request.urlopen(
        f"{live_server}/g/{public_id}/audit/9/evidence.json", timeout=30
    ).read()
    (tmp_path / "evidence.json").write_bytes(evidence)
    commands = html.unescape(COMMANDS.search(page).group(1)).splitlines()
    assert commands[1].startswith(f"pbem-check/bin/pip install {live_server}/download/")
    assert commands[2] == f"pbem-check/bin/pbem verify {saved_as}"

    environ = _python_311(tmp_path / "bin")
    started = time.monotonic()
    outputs = []
    for command in commands:
        done = subprocess.run(
            command, shell=True, cwd=tmp_path, env=environ, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        outputs.append(done.stdout)
    took = time.monotonic() - started
    assert outputs[-1].startswith(f"ok   {saved_as}:") and "hold" in outputs[-1], outputs[-1]

    # the same package's other tools work offline, and it brought none of the server's needs
    checker = tmp_path / "pbem-check" / "bin"
    replayed = subprocess.run(
        [checker / "pbem", "replay", saved_as], cwd=tmp_path, capture_output=True, text=True
    )
    assert replayed.returncode == 0 and "wins" in replayed.stdout
    legal = subprocess.run(
        [checker / "pbem", "moves", "evidence.json"], cwd=tmp_path, capture_output=True, text=True
    )
    assert legal.returncode == 0 and legal.stdout.strip(), legal.stderr
    (tmp_path / "computer.json").write_text(computer_game().dumps())  # docs/computer.md
    again = subprocess.run(
        [checker / "pbem", "reproduce", "computer.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0 and "moves played again" in again.stdout, again.stderr
    no_server = subprocess.run([checker / "python", "-c", "import flask"], capture_output=True)
    assert no_server.returncode != 0
    refused = subprocess.run([checker / "pbem", "games"], capture_output=True, text=True)
    assert refused.returncode != 0 and "pbem[server]" in refused.stderr

    # installed from the wheel, pbem.wheel rebuilds the very same bytes from the RECORD
    served = urllib.request.urlopen(commands[1].split()[-1], timeout=30).read()
    rebuilt = subprocess.run(
        [
            checker / "python",
            "-c",
            "import sys, pbem.wheel; sys.stdout.buffer.write(pbem.wheel.wheel_bytes())",
        ],
        capture_output=True,
        cwd=tmp_path,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert rebuilt.stdout == served
    print(f"venv, pip install and pbem verify took {took:.1f} s")
    shutil.rmtree(tmp_path / "pbem-check")


def test_an_instance_folder_the_server_may_not_write_still_serves_the_wheel(tmp_path, monkeypatch):
    write = wheel._write

    def refuse(folder, *args):
        if folder == tmp_path / "download":
            raise PermissionError(13, "read-only", str(folder))
        return write(folder, *args)

    monkeypatch.setattr(wheel, "_write", refuse)
    made = wheel.built(tmp_path / "download")
    assert made.path.is_file() and not made.path.is_relative_to(tmp_path)
    assert made.path.read_bytes() == wheel.wheel_bytes()
