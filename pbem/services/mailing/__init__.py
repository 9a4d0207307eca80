"""The mails a game queues and the outbox as an operator sees it (docs/architecture.md,
"The services by area"); below every area that queues a mail."""
