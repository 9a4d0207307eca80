"""A player's account: signing in, sessions, a new address, settings for all of a
player's seats, "my games", erasure, the public player page (docs/architecture.md, "The
services by area")."""
