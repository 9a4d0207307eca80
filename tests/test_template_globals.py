"""Template globals whose keys a ``{% from ... import %}`` checks in C (``QuickGlobals``):
the same layering and the same liveness as Jinja's own ``ChainMap``."""

from __future__ import annotations

import pytest
from jinja2 import DictLoader, Environment

from pbem.mail.compose import environment
from pbem.templating import QuickEnvironment


def _env() -> QuickEnvironment:
    return QuickEnvironment(
        loader=DictLoader(
            {
                "macros.html": "{% macro hi() %}hi {{ who }}{% endmacro %}",
                "page.html": '{% from "macros.html" import hi %}{{ hi() }} {{ extra }}',
            }
        )
    )


def test_keys_are_a_dict_view_of_both_layers() -> None:
    env = _env()
    env.globals["who"] = "env"
    made = env.make_globals({"own": 1})
    assert type(made.keys()) is type({}.keys())
    assert set(made.keys()) == {"own", "who"} | set(env.globals)
    assert {"own", "who", "nowhere"} - made.keys() == {"nowhere"}
    assert made["who"] == "env" and made["own"] == 1


def test_template_globals_overlay_the_environment_and_stay_live() -> None:
    env = _env()
    env.globals.update(who="env", extra="x")
    page = env.get_template("page.html", globals={"extra": "own"})
    assert page.render() == "hi env own"
    env.globals["late"] = "set after the template loaded"
    assert "late" in page.globals and page.globals["late"].startswith("set")


@pytest.mark.parametrize(
    ("own", "context"),
    [({}, {}), ({"who": "page"}, {}), ({"fresh": 1}, {"who": "ctx"}), ({}, {"extra": "c"})],
)
def test_renders_as_jinjas_own_globals(own: dict, context: dict) -> None:
    """What an import sees, given the importer's globals and context: as plain Jinja."""
    plain = Environment(loader=_env().loader)
    outs = []
    for env in (plain, _env()):
        env.globals.update(who="env", extra="x")
        outs.append(env.get_template("page.html", globals=dict(own)).render(**context))
    assert outs[0] == outs[1]


def test_the_mail_and_web_environments_use_it(app) -> None:
    assert isinstance(environment(), QuickEnvironment)
    assert type(app.jinja_env.make_globals(None).keys()) is type({}.keys())
