"""The optional IMAP mailbox: the poller reads unseen replies and plays their moves.

The server here is a small real IMAP4rev1 server on a loopback port that speaks just
the commands the poller uses (LOGIN, SELECT, SEARCH UNSEEN, FETCH RFC822, STORE, LOGOUT).
"""

from __future__ import annotations

import socketserver
import threading

from pbem.receiver import poll_imap
from tests.mail.play import new_game
from tests.mail.test_replies import log_of, reply, reply_to_of, state


class Mailbox:
    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.seen: set[int] = set()
        self.logins: list[tuple[str, str]] = []


def make_server(box: Mailbox) -> socketserver.ThreadingTCPServer:
    class Handler(socketserver.StreamRequestHandler):
        def send(self, line: str | bytes) -> None:
            self.wfile.write(line if isinstance(line, bytes) else line.encode() + b"\r\n")

        def handle(self) -> None:
            self.send("* OK test IMAP4rev1 ready")
            while line := self.rfile.readline():
                tag, _, rest = line.decode().strip().partition(" ")
                command, _, args = rest.partition(" ")
                command = command.upper()
                if command == "CAPABILITY":
                    self.send("* CAPABILITY IMAP4rev1")
                elif command == "LOGIN":
                    user, password = args.split(" ", 1)
                    box.logins.append((user.strip('"'), password.strip('"')))
                elif command == "SELECT":
                    self.send(f"* {len(box.messages)} EXISTS")
                    self.send(f"{tag} OK [READ-WRITE] SELECT done")
                    continue
                elif command == "SEARCH":
                    unseen = [str(i + 1) for i in range(len(box.messages)) if i not in box.seen]
                    self.send("* SEARCH " + " ".join(unseen))
                elif command == "FETCH":
                    n = int(args.split(" ")[0])
                    raw = box.messages[n - 1]
                    self.send(
                        f"* {n} FETCH (RFC822 {{{len(raw)}}}".encode() + b"\r\n" + raw + b")\r\n"
                    )
                elif command == "STORE":
                    box.seen.add(int(args.split(" ")[0]) - 1)
                elif command == "LOGOUT":
                    self.send("* BYE")
                    self.send(f"{tag} OK LOGOUT done")
                    return
                self.send(f"{tag} OK {command} done")

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    return server


def test_the_poller_plays_unseen_replies_once(smtp_env):
    box = Mailbox()
    server = make_server(box)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = smtp_env
        env.config = env.config.with_(
            imap_host="127.0.0.1",
            imap_port=server.server_address[1],
            imap_ssl=False,
            imap_user="play",
            imap_password="secret",
        )
        public_id = new_game(env, first=0)
        address = reply_to_of(env, public_id, 0)
        move = str(state(env, public_id).legal_moves()[0])
        box.messages.append(reply(address, move).as_bytes())
        assert poll_imap(env) == 1
        assert len(log_of(env, public_id)) == 1
        assert box.seen == {0} and box.logins == [("play", "secret")]
        assert poll_imap(env) == 0  # seen: not read again
    finally:
        server.shutdown()


def test_no_imap_configured_polls_nothing(env):
    assert poll_imap(env) == 0
