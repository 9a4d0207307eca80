"""A game's record and what is read from it: exporting and verifying, the replay's frames
and who may open them, the audit, the analysis of finished games (docs/architecture.md,
"The services by area")."""
