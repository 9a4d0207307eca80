"""pbem: a play-by-email server for the card game Jaipur."""

#: The one place the version is written: pyproject.toml reads it, so the wheel served at
#: ``/download`` carries it in its name. Bump it with each change a player, an auditor or an
#: operator can see, and add its entry at the top of CHANGELOG.md.
__version__ = "0.4.0"
