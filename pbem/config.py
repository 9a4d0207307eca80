"""Configuration from the environment, read here and nowhere else in the package.

Development needs nothing set: a SQLite file and a generated secret key in the
instance folder, and mail kept in the dev inbox. Production must say
``PBEM_ENV=production`` and give a secret key and an SMTP server. Every setting is
listed in README.md, "Configuration".
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass, field, replace
from email.headerregistry import Address, AddressHeader, HeaderRegistry
from pathlib import Path
from typing import cast

ENVIRONMENTS = ("development", "testing", "production")
MAIL_BACKENDS = ("smtp", "console", "file")


class ConfigError(RuntimeError):
    """A setting is missing or wrong; the message says which and how to fix it."""


def load_dotenv(path: Path) -> None:
    """Read ``KEY=value`` lines of a ``.env`` file into the environment (without overriding)."""
    if not path.is_file():
        return
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        os.environ.setdefault(key.strip(), value.strip().strip("'\""))


@dataclass(frozen=True)
class Limits:
    """How often a visitor may make the server send mail, or store something.

    Each is in the notation of the ``limits`` library, several joined by ``;``
    (``"10 per hour; 30 per day"``), and is set with ``PBEM_LIMIT_<NAME>``
    (``PBEM_LIMIT_GAMES_PER_CLIENT``); ``none`` lifts one. A client is an IPv4
    address or an IPv6 /64 (behind a proxy, set ``PBEM_TRUSTED_PROXIES``); an
    address is the email address a mail would go to, counted lower-cased and without
    a ``+tag``. Only what is let through is counted, and nothing one person does is
    counted against another (``services.core.limits``).
    """

    #: Games started on the web, per client, or per player when signed in.
    games_per_client: str = "10 per hour; 30 per day"
    #: Invitations mailed to one address: per player and address when the starter is
    #: signed in, else per address across every starter who is not; a signed-in
    #: player's own address is not counted for the games they start.
    invitations_per_address: str = "5 per hour; 20 per day"
    #: Challenges posted or accepted, per signed-in player.
    challenges_per_client: str = "10 per hour; 30 per day"
    #: Sign-in requests per client, and changes of address per player (beyond: a 429 page).
    sign_in_per_client: str = "5 per 10 minutes; 30 per day"
    #: Sign-in and confirmation mails to one address asked for by one client, or one
    #: player (beyond: a 429 page); others' requests never count against it.
    sign_in_per_address: str = "3 per hour; 10 per day"
    #: "Send me my link again" requests, per client.
    link_requests_per_client: str = "5 per 10 minutes; 30 per day"
    #: Link mails to one seat of one game asked for by one client (beyond: the answer is
    #: the same, no mail; the mails already sent hold the link).
    link_mails_per_seat: str = "3 per hour; 10 per day"
    #: Answers to replies that recorded nothing, to one seat of one game (beyond: the
    #: reply is logged as refused and nobody is mailed).
    refusals_per_seat: str = "5 per hour; 20 per day"
    #: Record files opened on the home page, per client.
    uploads_per_client: str = "10 per hour; 50 per day"
    #: Analyses of uploaded record files asked for, per client (each costs the scheduler
    #: seconds of every core: docs/analysis.md).
    record_analyses_per_client: str = "5 per hour; 20 per day"

    def check(self) -> Limits:
        from limits import parse_many

        for name, value in vars(self).items():
            if value.strip().lower() in ("", "none"):
                continue
            try:
                parse_many(value)
            except ValueError:
                raise ConfigError(
                    f"PBEM_LIMIT_{name.upper()}={value!r} is not a rate limit: write it like "
                    "'5 per 10 minutes' or '10 per hour; 30 per day', or 'none'"
                ) from None
        return self

    @classmethod
    def from_env(cls) -> Limits:
        chosen = {
            name: os.environ[f"PBEM_LIMIT_{name.upper()}"]
            for name in cls.__dataclass_fields__
            if f"PBEM_LIMIT_{name.upper()}" in os.environ
        }
        return cls(**chosen).check()


@dataclass(frozen=True)
class Intervals:
    """Seconds between runs of each scheduler job (``PBEM_<JOB>_EVERY``)."""

    deliver: int = 15
    clock: int = 60
    digest: int = 600
    imap: int = 60
    purge: int = 3600
    computer: int = 2  #: the computer's moves in games moved in lately
    computer_sweep: int = 60  #: the computer's moves in every game (anything missed)
    analyse: int = 30
    retention: int = 3600  #: sent mails' words pruned, clients reduced (``Retention``)
    events: int = 60  #: events started, rounds ended and paired (``services/events``)
    #: The active scheduler renews its lease, and a standby looks for a lapsed one.
    lease_renew: int = 10

    @classmethod
    def from_env(cls) -> Intervals:
        return cls(
            **{
                name: _int(f"PBEM_{name.upper()}_EVERY", str(default))
                for name, default in vars(cls()).items()
            }
        )


@dataclass(frozen=True)
class Retention:
    """How long what a person leaves behind is kept whole (docs/deploy.md, "Retention").

    After ``mail_days`` a sent mail keeps its Message-ID, recipient, kind, times and the
    chain hash it carried, not its subject and bodies (``PBEM_RETENTION_MAIL_DAYS``).
    After ``client_days`` a row of the access log keeps the network of its IP address and
    the browser family of its user agent, and a sign-in link no IP address
    (``PBEM_RETENTION_CLIENT_DAYS``).
    """

    mail_days: int = 90
    client_days: int = 90

    @classmethod
    def from_env(cls) -> Retention:
        chosen = {}
        for name, default in vars(cls()).items():
            variable = f"PBEM_RETENTION_{name.upper()}"
            days = _int(variable, str(default))
            if days < 1:
                raise ConfigError(f"{variable} must be a number of days, 1 or more")
            chosen[name] = days
        return cls(**chosen)


@dataclass(frozen=True)
class Config:
    env: str = "development"
    instance_path: Path = field(default_factory=lambda: Path.cwd() / "instance")
    database_url: str = ""
    secret_key: str = ""
    base_url: str = "http://127.0.0.1:5000"
    mail_backend: str = "console"
    mail_from: str = "Jaipur by mail <jaipur@localhost>"
    smtp_host: str = "localhost"
    smtp_port: int = 25
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_tls: str = "none"  # none, starttls or ssl
    #: Replies go to ``<local>+<token>@<domain>`` of this address (plus addressing).
    reply_address: str = "play@localhost"
    #: Mail goes out with the return path ``<local>+<token>@<domain>`` of this address
    #: (VERP): a bounce names the mail it is of (PBEM_BOUNCE_ADDRESS; by default
    #: ``bounce@`` the reply address's domain).
    bounce_address: str = "bounce@localhost"
    #: The hour (UTC) after which the daily digests go out.
    digest_hour: int = 7
    imap_host: str = ""
    imap_port: int = 993
    imap_user: str = ""
    imap_password: str = ""
    imap_folder: str = "INBOX"
    imap_ssl: bool = True
    #: A reply larger than this is not read but answered (PBEM_INBOUND_MAX_KB); the
    #: receiver refuses mail past ``receiver.SMTP_SIZE_LIMIT`` (or this, if larger) at DATA.
    inbound_max_bytes: int = 256 * 1024
    #: The name ``pbem inbound`` gives in its greeting and EHLO/LHLO answer
    #: (PBEM_INBOUND_HOSTNAME; empty: the machine's fully qualified name).
    inbound_hostname: str = ""
    #: Hours a reply address stays answered once its move is spent (the game moved past
    #: it, or ended), so a late reply is told what happened; then it is refused at RCPT.
    reply_grace_hours: int = 24
    #: Reverse proxies in front of the app whose X-Forwarded-* headers are trusted.
    trusted_proxies: int = 0
    limits: Limits = field(default_factory=Limits)
    #: Record files opened on the home page: kept this many days, at most this many
    #: files and bytes in all (the oldest go first).
    upload_days: int = 7
    upload_max_files: int = 500
    #: Moves of finished games the scheduler's ``analyse`` job judges in one run (each
    #: takes a few tenths of a second of one core, stored a few at a time as they come:
    #: docs/analysis.md); a whole match, so a game ended is analysed in one run.
    analysis_moves: int = 200
    #: Processes that judge those moves side by side (PBEM_ANALYSIS_WORKERS; the
    #: environment's default is the machine's cores, 1 judges in the scheduler itself).
    analysis_workers: int = 1
    upload_max_bytes: int = 100 * 1024 * 1024
    #: Replayed positions kept per process (0 turns the cache off; the load benchmark
    #: measures both).
    replay_cache: int = 512
    #: The scheduler's job intervals.
    every: Intervals = field(default_factory=Intervals)
    #: How long sent mails' words and clients' addresses are kept.
    retention: Retention = field(default_factory=Retention)
    #: Seconds the active scheduler's lease lasts unrenewed: a hung or dead one is
    #: replaced by a standby after at most this long (plus ``every.lease_renew``).
    lease_seconds: int = 30
    #: Seconds after which a mail claimed by a sender that died (or hung) before recording
    #: it sent is sent again, with the same Message-ID (docs/scaling.md, "Mail").
    mail_recover_after: int = 600
    #: Seconds a "your turn" mail waits before it is sent; it is dropped if the seat's
    #: page showed the move meanwhile (``told.after_move``, PBEM_TURN_MAIL_HOLD).
    turn_mail_hold: int = 180
    #: The PostgreSQL role the application runs as, granted its privileges by
    #: ``pbem db upgrade`` (PBEM_DATABASE_APP_ROLE; empty: no grant).
    database_app_role: str = ""
    #: Whether PBEM_BASE_URL was set: ``pbem serve`` points links at itself otherwise.
    base_url_given: bool = False
    #: Requests that wait for a bot's events (long polls, streams) at once in one web
    #: process (PBEM_BOT_WAITS): each holds a thread, so the pages keep the others.
    bot_waits: int = 1

    def reply_to(self, token: str) -> str:
        local, _, domain = self.reply_address.partition("@")
        return f"{local}+{token}@{domain}"

    def bounce_to(self, token: str) -> str:
        local, _, domain = self.bounce_address.partition("@")
        return f"{local}+{token}@{domain}"

    @property
    def dev_mode(self) -> bool:
        return self.env != "production"

    def with_(self, **changes: object) -> Config:
        return replace(self, **changes)  # type: ignore[arg-type]


def _secret_key(instance: Path, env: str) -> str:
    key = os.environ.get("PBEM_SECRET_KEY", "")
    if key:
        return key
    if env == "production":
        raise ConfigError("PBEM_SECRET_KEY must be set in production (e.g. `openssl rand -hex 32`)")
    # development: one key per instance folder, so seat links survive a restart
    path = instance / "secret_key"
    if not path.exists():
        instance.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


#: A host name as a greeting may carry it: labels of letters, digits and hyphens.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*")


def _int(name: str, default: str) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        raise ConfigError(f"{name} must be a number") from None


def _seconds(name: str, default: str) -> int:
    """A number of seconds, 0 or more."""
    value = _int(name, default)
    if value < 0:
        raise ConfigError(f"{name} must be 0 or more seconds")
    return value


_LOCAL_PART = re.compile(r"[a-z0-9][a-z0-9._-]{0,40}")


def _bounce_address(reply_address: str) -> str:
    """PBEM_BOUNCE_ADDRESS, or ``bounce@`` the reply address's domain: one plain
    address (a lowercase local part without ``+``), never the reply address itself."""
    domain = reply_address.rpartition("@")[2]
    address = os.environ.get("PBEM_BOUNCE_ADDRESS", "").strip() or f"bounce@{domain}"
    local, at, bounce_domain = address.partition("@")
    plain = _LOCAL_PART.fullmatch(local) and re.fullmatch(r"[A-Za-z0-9.-]+", bounce_domain)
    if not at or not plain:
        raise ConfigError(
            "PBEM_BOUNCE_ADDRESS must be one plain address such as bounce@example.org"
            " (a lowercase local part of letters, digits, '.', '_' or '-', no '+')"
        )
    if address.casefold() == reply_address.casefold():
        raise ConfigError("PBEM_BOUNCE_ADDRESS must not be the reply address")
    return address


def templates_auto_reload() -> bool:
    """Whether mail templates are re-read when their file changes (development only).

    Read from PBEM_ENV here because mail is rendered by ``mail.compose`` for the use
    cases, which pass no Config down to it.
    """
    return os.environ.get("PBEM_ENV", "development") == "development"


def one_mailbox(value: str, name: str) -> str:
    """``value`` read as exactly one mailbox (``Name <local@domain>`` or a bare address),
    written back as the email package writes it (a display name with a comma quoted);
    else a ``ConfigError`` naming the setting ``name``.

    An unquoted comma in a display name makes two mailboxes of one From header, and the
    envelope sender the wrong one (docs/deploy.md, "Mail settings")."""
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ConfigError(f"{name} must be one line: it holds a line break or a control character")
    try:
        header = HeaderRegistry()("From", value)
        mailboxes = cast(AddressHeader, header).addresses
    except (ValueError, IndexError, TypeError):
        mailboxes = ()
        header = None
    if header is None or len(mailboxes) != 1 or header.defects:
        raise ConfigError(
            f'{name} must be exactly one mailbox, such as "Jaipur by mail <jaipur@example.org>" '
            f"(a display name holding a comma goes in double quotes), not {value!r}"
        )
    (box,) = mailboxes
    if any(ord(c) < 32 or ord(c) == 127 for c in box.display_name):  # from an encoded word
        raise ConfigError(f"{name} must be one line: its name decodes to a control character")
    if not box.username or not box.domain or "@" not in box.addr_spec:
        raise ConfigError(f"{name} must hold an address with an @ and a domain, not {value!r}")
    return str(Address(display_name=box.display_name, addr_spec=box.addr_spec))


def from_env() -> Config:
    load_dotenv(Path.cwd() / ".env")
    env = os.environ.get("PBEM_ENV", "development")
    if env not in ENVIRONMENTS:
        raise ConfigError(f"PBEM_ENV must be one of {', '.join(ENVIRONMENTS)}, not {env!r}")
    instance = Path(os.environ.get("PBEM_INSTANCE_PATH", Path.cwd() / "instance")).resolve()
    database_url = os.environ.get("PBEM_DATABASE_URL") or f"sqlite:///{instance / 'pbem.sqlite3'}"
    backend = os.environ.get("PBEM_MAIL_BACKEND", "smtp" if env == "production" else "console")
    if backend not in MAIL_BACKENDS:
        raise ConfigError(f"PBEM_MAIL_BACKEND must be one of {', '.join(MAIL_BACKENDS)}")
    if env == "production" and backend != "smtp":
        raise ConfigError(
            f"PBEM_MAIL_BACKEND={backend} is for development: production sends "
            "mail over SMTP (set PBEM_SMTP_HOST and friends)"
        )
    if env == "production" and not os.environ.get("PBEM_BASE_URL", "").startswith("https://"):
        raise ConfigError("PBEM_BASE_URL must be the https:// address players reach in production")
    tls = os.environ.get("PBEM_SMTP_TLS", "none").lower()
    if tls not in ("none", "starttls", "ssl"):
        raise ConfigError("PBEM_SMTP_TLS must be none, starttls or ssl")
    try:
        port = int(os.environ.get("PBEM_SMTP_PORT", "465" if tls == "ssl" else "25"))
    except ValueError:
        raise ConfigError("PBEM_SMTP_PORT must be a number") from None
    mail_from = one_mailbox(os.environ.get("PBEM_MAIL_FROM", Config.mail_from), "PBEM_MAIL_FROM")
    domain = mail_from.rsplit("@", 1)[-1].strip("<> ") or "localhost"
    try:
        digest_hour = int(os.environ.get("PBEM_DIGEST_HOUR", "7"))
        imap_port = int(os.environ.get("PBEM_IMAP_PORT", "993"))
    except ValueError:
        raise ConfigError("PBEM_DIGEST_HOUR and PBEM_IMAP_PORT must be numbers") from None
    reply_grace_hours = _int("PBEM_REPLY_GRACE_HOURS", "24")
    inbound_max_kb = _int("PBEM_INBOUND_MAX_KB", "256")
    if inbound_max_kb < 1:
        raise ConfigError("PBEM_INBOUND_MAX_KB must be a number of kilobytes above 0")
    inbound_hostname = os.environ.get("PBEM_INBOUND_HOSTNAME", "").strip()
    if inbound_hostname and not _HOSTNAME.fullmatch(inbound_hostname):
        raise ConfigError(
            "PBEM_INBOUND_HOSTNAME must be a host name (letters, digits, dots and hyphens)"
        )
    if reply_grace_hours < 0:
        raise ConfigError("PBEM_REPLY_GRACE_HOURS must be 0 or more")
    reply_address = os.environ.get("PBEM_REPLY_ADDRESS", f"play@{domain}")
    bounce_address = _bounce_address(reply_address)
    every = Intervals.from_env()
    lease_seconds = _int("PBEM_LEASE_SECONDS", str(Config.lease_seconds))
    if not 0 < every.lease_renew < lease_seconds:
        raise ConfigError(
            "PBEM_LEASE_RENEW_EVERY must be more than 0 and less than PBEM_LEASE_SECONDS "
            f"({every.lease_renew} and {lease_seconds}): the lease must be renewed before it lapses"
        )
    mail_recover_after = _int("PBEM_MAIL_RECOVER_AFTER", str(Config.mail_recover_after))
    if mail_recover_after <= 0:
        raise ConfigError("PBEM_MAIL_RECOVER_AFTER must be a number of seconds above 0")
    return Config(
        env=env,
        instance_path=instance,
        database_url=database_url,
        secret_key=_secret_key(instance, env),
        base_url=os.environ.get("PBEM_BASE_URL", "http://127.0.0.1:5000").rstrip("/"),
        mail_backend=backend,
        mail_from=mail_from,
        reply_address=reply_address,
        bounce_address=bounce_address,
        digest_hour=digest_hour,
        inbound_max_bytes=inbound_max_kb * 1024,
        inbound_hostname=inbound_hostname,
        imap_host=os.environ.get("PBEM_IMAP_HOST", ""),
        imap_port=imap_port,
        imap_user=os.environ.get("PBEM_IMAP_USER", ""),
        imap_password=os.environ.get("PBEM_IMAP_PASSWORD", ""),
        imap_folder=os.environ.get("PBEM_IMAP_FOLDER", "INBOX"),
        imap_ssl=os.environ.get("PBEM_IMAP_SSL", "true").lower() not in ("0", "false", "no"),
        trusted_proxies=_int("PBEM_TRUSTED_PROXIES", "0"),
        reply_grace_hours=reply_grace_hours,
        limits=Limits.from_env(),
        upload_days=_int("PBEM_UPLOAD_DAYS", "7"),
        upload_max_files=_int("PBEM_UPLOAD_MAX_FILES", "500"),
        upload_max_bytes=_int("PBEM_UPLOAD_MAX_MB", "100") * 1024 * 1024,
        smtp_host=os.environ.get("PBEM_SMTP_HOST", "localhost"),
        smtp_port=port,
        smtp_user=os.environ.get("PBEM_SMTP_USER", ""),
        smtp_password=os.environ.get("PBEM_SMTP_PASSWORD", ""),
        smtp_tls=tls,
        replay_cache=_int("PBEM_REPLAY_CACHE", "512"),
        analysis_moves=_int("PBEM_ANALYSIS_MOVES", "200"),
        analysis_workers=_int("PBEM_ANALYSIS_WORKERS", str(os.cpu_count() or 1)),
        every=every,
        retention=Retention.from_env(),
        lease_seconds=lease_seconds,
        mail_recover_after=mail_recover_after,
        bot_waits=_int("PBEM_BOT_WAITS", str(Config.bot_waits)),
        turn_mail_hold=_seconds("PBEM_TURN_MAIL_HOLD", "180"),
        database_app_role=os.environ.get("PBEM_DATABASE_APP_ROLE", ""),
        base_url_given=bool(os.environ.get("PBEM_BASE_URL")),
    )
