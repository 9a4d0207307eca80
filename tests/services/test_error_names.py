"""The use cases' errors cannot be taken for werkzeug's HTTP exceptions: no name is shared,
so the web tier imports both without an alias (pbem/services/core/errors.py)."""

from __future__ import annotations

import inspect

from werkzeug import exceptions as http

from pbem.services.core import errors


def test_no_service_error_shares_a_name_with_a_werkzeug_exception() -> None:
    ours = {name for name, value in vars(errors).items() if inspect.isclass(value)}
    ours = {name for name in ours if issubclass(getattr(errors, name), errors.ServiceError)}
    theirs = {name for name, value in vars(http).items() if inspect.isclass(value)}
    assert len(ours) > 5
    assert sorted(ours & theirs) == []
