"""The use cases: one transaction each, called by every entry point (web, CLI, scheduler,
inbound mail receiver); they call the engine for rules, the store for rows and mail/ to
compose and deliver (docs/architecture.md, "Layers")."""
