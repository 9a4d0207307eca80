"""What every use case is given and no use case owns: the env, the errors, a game's
status, the rate limits, seat links, the replayed log and its cache, the integrity check,
reading a game and its access log, who an address is (docs/architecture.md, "The services
by area"). Nothing here imports a use case (``tests/test_layers.py``)."""
