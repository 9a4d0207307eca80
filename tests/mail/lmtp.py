"""A minimal LMTP client for tests: smtplib reads one answer after DATA, and LMTP gives one
per accepted recipient (RFC 2033 4.2)."""

from __future__ import annotations

import socket


def lmtp_exchange(
    port: int, recipients: list[str], raw: bytes, sender: str = "x@example.test"
) -> list[str]:
    """The answers to each RCPT, then one answer per accepted recipient after DATA."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        reader = sock.makefile("rb")

        def answer() -> str:
            lines = []
            while True:
                line = reader.readline().decode()
                lines.append(line.rstrip())
                if line[3:4] != "-":
                    return "\n".join(lines)

        def say(command: str) -> str:
            sock.sendall(command.encode() + b"\r\n")
            return answer()

        answer()  # greeting
        assert say("LHLO client.test").startswith("250")
        assert say(f"MAIL FROM:<{sender}>").startswith("250")
        rcpt = [say(f"RCPT TO:<{r}>") for r in recipients]
        accepted = sum(1 for r in rcpt if r.startswith("250"))
        if not accepted:
            say("RSET")
            return rcpt
        assert say("DATA").startswith("354")
        body = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        lines = [b"." + line if line.startswith(b".") else line for line in body.split(b"\r\n")]
        sock.sendall(b"\r\n".join(lines) + b"\r\n.\r\n")
        return rcpt + [answer() for _ in range(accepted)]
