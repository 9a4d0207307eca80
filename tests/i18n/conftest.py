"""The mail tests' real SMTP server and reply receiver, for the replies in tests/i18n."""

from tests.mail.conftest import smtp_env, smtp_server  # noqa: F401
from tests.mail.test_replies import receiver  # noqa: F401
