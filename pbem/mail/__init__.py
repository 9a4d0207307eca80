"""Mail: composing messages from templates, the outbox, and delivery."""
