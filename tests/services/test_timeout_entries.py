"""Only the server's clock writes a ``timeout`` entry (docs/record-format.md §3.3): a player
who types it, on the web, by mail or through the API, is refused and nothing is logged."""

from __future__ import annotations

import pytest

from pbem.services.core import access
from pbem.services.core.errors import ServiceError
from pbem.services.play import moves
from pbem.services.records import game_records
from tests.mail.play import new_game, token


@pytest.mark.parametrize("source", ["web", "email", "api"])
def test_a_typed_timeout_is_refused_and_logs_nothing(env, source):
    public_id = new_game(env, first=0)
    with pytest.raises(ServiceError, match="server's clock"):
        moves.submit_move(
            env, token(env, public_id, 0), 1, "timeout", access.Client(), source=source
        )
    with pytest.raises(ServiceError, match="server's clock"):
        moves.preview_move(env, token(env, public_id, 0), 1, "timeout", access.Client())
    assert game_records.operator_record(env, public_id)["moves"] == []
