"""Events (tournaments): their life from creation to the final standings (docs/events.md)."""
