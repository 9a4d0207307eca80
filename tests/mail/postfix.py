"""Debian's Postfix on loopback, on free ports, configured as docs/deploy.md says.

Its configuration is the test's own lines (where it listens, where its queue is, the
relay standing in for the players' mail servers) followed by ``deploy/postfix/main.cf``
as it is, and the tables of ``deploy/postfix/`` with only the receiver's port changed:
the same text docs/deploy.md shows (``tests/mail/test_postfix.py`` checks the doc quotes
those files). Its queue, data and configuration directories are a temporary directory of
its own (``postfix -c DIR``), so it never touches the system's Postfix, which may not even
be configured.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "deploy" / "postfix"
#: The tables ``deploy/postfix/main.cf`` names, each made with ``postmap`` if it is a hash.
TABLES = ("pbem_transport", "pbem_recipients", "pbem_login_senders")
#: Where the documented transport sends replies; the test's receiver listens elsewhere.
DOCUMENTED_RECEIVER = "127.0.0.1:8025"
SBIN = "/usr/sbin"


def missing() -> str | None:
    """Why Debian's Postfix cannot run here, or None."""
    if not Path(SBIN, "postfix").exists():
        return "postfix is not installed (.ci/run installs it: apt-get install postfix)"
    if os.geteuid() != 0:
        return "starting a Postfix instance needs root"
    if not Path("/etc/postfix/master.cf").exists():
        return "/etc/postfix/master.cf is missing (the postfix package installs it)"
    return None


def _run(*args: str) -> str:
    done = subprocess.run(
        [f"{SBIN}/{args[0]}", *args[1:]], capture_output=True, text=True, timeout=60
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {done.stdout}{done.stderr}")
    return done.stdout


class Postfix:
    """One private Postfix instance: SMTP on ``smtp_port``, mail for other domains relayed
    to ``relay_port``, the reply domain handed to the LMTP receiver on ``receiver_port``."""

    def __init__(self, smtp_port: int, relay_port: int, receiver_port: int) -> None:
        self.smtp_port = smtp_port
        # not pytest's tmp_path: its folders are root's alone, and Postfix's daemons run
        # as the user postfix, which must reach its data directory
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-postfix-"))
        self.dir.chmod(0o755)
        self.etc, self.maillog = self.dir / "etc", self.dir / "maillog"
        for sub in ("etc", "spool", "data"):
            (self.dir / sub).mkdir()
        shutil.chown(self.dir / "data", "postfix")
        (self.dir / "data").chmod(0o700)
        own = f"""\
# the test's own: a private instance on loopback
compatibility_level = 3.6
config_directory = {self.etc}
queue_directory = {self.dir / "spool"}
data_directory = {self.dir / "data"}
maillog_file = {self.maillog}
maillog_file_prefixes = {self.dir}
mail_owner = postfix
setgid_group = postdrop
myhostname = mail.example.org
mydomain = example.org
myorigin = example.org
mydestination = localhost
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
relayhost = [127.0.0.1]:{relay_port}
smtputf8_enable = no
# no /etc/aliases of the system's: local users are the passwd file's
alias_maps =
alias_database =
# retry a refused connection at once, not in minutes
minimal_backoff_time = 1s
maximal_backoff_time = 2s
queue_run_delay = 1s

"""
        (self.etc / "main.cf").write_text(own + (SNIPPETS / "main.cf").read_text())
        for table in TABLES:
            text = (SNIPPETS / table).read_text()
            if table == "pbem_transport":
                assert DOCUMENTED_RECEIVER in text
                text = text.replace(DOCUMENTED_RECEIVER, f"127.0.0.1:{receiver_port}")
            (self.etc / table).write_text(text)
            if f"hash:$config_directory/{table}" in (SNIPPETS / "main.cf").read_text():
                _run("postmap", "-c", str(self.etc), str(self.etc / table))
        shutil.copy("/etc/postfix/master.cf", self.etc / "master.cf")
        self.postconf("-F", "*/*/chroot = n")  # no copies of /etc files in a chroot
        self.postconf("-MX", "smtp/inet")  # not port 25
        listen = f"127.0.0.1:{smtp_port}"
        self.postconf("-M", f"{listen}/inet={listen} inet n - n - - smtpd")

    def postconf(self, *args: str) -> str:
        return _run("postconf", "-c", str(self.etc), *args)

    def start(self) -> None:
        _run("postfix", "-c", str(self.etc), "start")
        end = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.smtp_port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > end:
                    raise RuntimeError(self.log()[-3000:]) from None
                time.sleep(0.1)

    def stop(self) -> None:
        try:
            _run("postfix", "-c", str(self.etc), "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def log(self) -> str:
        return self.maillog.read_text(errors="replace") if self.maillog.exists() else ""

    def wait_for_log(self, text: str, deadline: float = 60) -> str:
        end = time.monotonic() + deadline
        while text not in (log := self.log()):
            if time.monotonic() > end:
                raise AssertionError(f"not in Postfix's log: {text}\n{log[-4000:]}")
            time.sleep(0.2)
        return log

    def sendmail(self, sender: str, recipient: str, raw: bytes) -> None:
        """The local ``sendmail`` command, as root, with this instance's configuration."""
        subprocess.run(
            [f"{SBIN}/sendmail", "-C", str(self.etc), "-f", sender, recipient],
            input=raw,
            check=True,
            timeout=60,
        )

    def senders_allowed(self, login: str) -> str:
        """The envelope senders ``local_login_sender_maps`` lets a local user give, as
        postdrop reads them (the first table that knows the login answers)."""
        for table in _tables(self.postconf("-hx", "local_login_sender_maps")):
            found = subprocess.run(
                [f"{SBIN}/postmap", "-c", str(self.etc), "-q", login, table],
                capture_output=True,
                text=True,
                timeout=60,
            )
            if found.returncode == 0:
                return found.stdout.strip()
        return ""


def _tables(value: str) -> list[str]:
    """A Postfix list of tables, split at commas and spaces outside ``{…}``."""
    tables, depth, word = [], 0, ""
    for char in value:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0 and char in ", \t\n":
            tables += [word] if word else []
            word = ""
        else:
            word += char
    return tables + ([word] if word else [])
