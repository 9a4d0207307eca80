"""Playing a game: creating one, its moves and reply mails, challenges, the computer, the
correspondence clock, a seat's settings and links, ratings (docs/architecture.md, "The
services by area")."""
