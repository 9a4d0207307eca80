"""The operator's commands, one module per area: the database schema (``db``), games
(``games``), the outbox (``outbox``) and ratings (``ratings``). ``pbem.cli`` assembles
them with the commands of the entry points (web, scheduler, receiver) and the record tools.
"""
