"""What every use case needs, built once per process and passed in (no globals)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...clock import Clock, SystemClock
from ...config import Config
from ...store.db import Database
from ...wheel import version, wheel_name
from .replay_cache import ReplayCache
from .seat_tokens import LinkSigner


@dataclass
class Env:
    config: Config
    db: Database
    clock: Clock = field(default_factory=SystemClock)
    links: LinkSigner = field(init=False)
    cache: ReplayCache = field(default_factory=ReplayCache)

    def __post_init__(self) -> None:
        self.links = LinkSigner(self.config.secret_key)

    @classmethod
    def from_config(cls, config: Config, clock: Clock | None = None) -> Env:
        return cls(
            config=config,
            db=Database(config.database_url),
            clock=clock or SystemClock(),
            cache=ReplayCache(config.replay_cache),
        )

    # Paths of the pages that mails and the CLI link to; the web blueprints serve these.
    def seat_url(self, token: str) -> str:
        return f"{self.config.base_url}/s/{token}"

    def unsubscribe_url(self, token: str) -> str:
        """A mail's one-click unsubscribe link (``List-Unsubscribe``, RFC 8058)."""
        return f"{self.config.base_url}/u/{token}"

    def game_url(self, public_id: str) -> str:
        return f"{self.config.base_url}/g/{public_id}"

    def event_url(self, public_id: str) -> str:
        return f"{self.config.base_url}/events/{public_id}"

    def record_url(self, public_id: str) -> str:
        return f"{self.config.base_url}/g/{public_id}/record.json"

    def download_url(self) -> str:
        """The page that tells how to check a game, with this server's own package."""
        return f"{self.config.base_url}/download"

    def wheel_url(self) -> str:
        """The running pbem as a wheel: ``pip install`` takes this URL as it is."""
        return f"{self.config.base_url}/download/{wheel_name(version())}"

    def check_commands(self, record_name: str) -> list[str]:
        """What a player types to check a record with this server's package, as written on
        every page and mail that says how: a venv of its own works even where the
        system's Python refuses ``pip install`` (PEP 668)."""
        return [
            "python3 -m venv pbem-check",
            f"pbem-check/bin/pip install {self.wheel_url()}",
            f"pbem-check/bin/pbem verify {record_name}",
        ]
