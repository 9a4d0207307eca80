"""pbem: a play-by-email server for the card game Jaipur."""

__version__ = "0.1.0"
