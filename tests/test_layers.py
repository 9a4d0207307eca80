"""The import graph of ``pbem/``: layers point down only (docs/architecture.md, "Layers").

Read with ``ast`` from the source, so every import counts, those inside functions too:
a lazy import is still a dependency, and a cycle through one is still a cycle. Only the
imports under ``if TYPE_CHECKING:`` are left out: they name types and never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pbem"

#: The entry points, side by side above the services.
ENTRY_POINTS = ("pbem.web", "pbem.cli", "pbem.admin", "pbem.scheduler", "pbem.receiver")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _imported(name: str, path: Path) -> Iterator[str]:
    """Every module named by an import in ``path``, absolute, as written."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:`` (walked with a list, not
    by recursion: nested generators made reading the package take seconds)."""
    todo = list(ast.iter_child_nodes(tree))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _pbem_module(imported: str) -> str | None:
    """The module of ``pbem/`` an import reaches (a name imported from a module is that
    module), or None for anything outside the package."""
    while imported:
        if imported in MODULES:
            return imported
        imported = imported.rpartition(".")[0]
    return None


@cache
def _graph() -> dict[str, set[str]]:
    """Each module's imports: of ``pbem/`` (as modules) and outside it (as written). Read
    once, when a test first asks, not while the run collects its tests."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        imported = set(_imported(name, path))
        targets = {_pbem_module(i) for i in imported}
        graph[name] = {t for t in targets if t and t != name}
        graph[name] |= {i for i in imported if not i.startswith("pbem")}
    return graph


def _inside(module: str, layer: str) -> bool:
    return module == layer or module.startswith(layer + ".")


def _pbem_edges(module: str) -> set[str]:
    return {t for t in _graph()[module] if t in MODULES}


def _is_submodule_of_package(module: str, target: str) -> bool:
    """A package's ``__init__`` and its own submodules may import each other (``from .
    import api`` there, ``from . import csrf`` here): that is one unit, not a cycle
    between layers."""
    return _inside(target, module) or _inside(module, target)


def test_there_is_no_import_cycle_in_pbem() -> None:
    state: dict[str, int] = {}  # 1 on the path, 2 done
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(_pbem_edges(module)):
            if _is_submodule_of_package(module, target):
                continue
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(MODULES):
        if module not in state:
            visit(module, [module])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def _offences(layer: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module in MODULES
        if _inside(module, layer)
        for target in _graph()[module]
        if any(_inside(target, f) for f in forbidden)
    )


def test_the_engine_imports_nothing_of_pbem_and_no_server_library() -> None:
    others = tuple(m for m in MODULES if not _inside(m, "pbem.engine") and m != "pbem")
    assert not _offences("pbem.engine", (*others, "flask", "sqlalchemy", "alembic", "jinja2"))


#: What the computer player (``pbem.ai``) may import besides the engine: the standard library.
AI_ALLOWED = (
    "pbem.engine",
    "__future__",
    "random",
    "math",
    "collections",
    "dataclasses",
    "typing",
    "hashlib",  # the computer's randomness for a move, from the game's seed
    "hmac",
    # the analysis's process pool (``pbem.ai.analysis.pool``)
    "multiprocessing",
    "concurrent",
    "contextlib",
)


def test_the_computer_player_imports_only_the_engine_and_the_standard_library() -> None:
    """``pbem.ai`` sits beside the engine: pure, it imports the engine and nothing else of
    pbem (and the engine does not import it: the test above)."""
    offences = sorted(
        f"{module} imports {target}"
        for module in MODULES
        if _inside(module, "pbem.ai")
        for target in _graph()[module]
        if not _inside(target, "pbem.ai") and not any(_inside(target, a) for a in AI_ALLOWED)
    )
    assert not offences


#: What the tournaments' core (``pbem.events``) may import besides the engine: the standard
#: library and networkx (its Swiss matching), all a ``pbem verify`` of an event needs.
EVENTS_ALLOWED = (
    "pbem.engine",
    "__future__",
    "collections",
    "dataclasses",
    "datetime",
    "enum",
    "functools",
    "hashlib",
    "itertools",
    "json",
    "math",
    "re",
    "typing",
    "networkx",
)


def test_the_events_core_imports_only_the_engine_networkx_and_the_standard_library() -> None:
    """``pbem.events`` is pure like the engine: the offline checker recomputes an event's
    pairings and standings with it, installed with no server library."""
    offences = sorted(
        f"{module} imports {target}"
        for module in MODULES
        if _inside(module, "pbem.events")
        for target in _graph()[module]
        if not _inside(target, "pbem.events")
        and not any(_inside(target, a) for a in EVENTS_ALLOWED)
    )
    assert not offences
    assert not [m for m in MODULES if _inside(m, "pbem.engine") and "pbem.events" in _graph()[m]]


def test_mail_only_composes_and_delivers() -> None:
    assert not _offences("pbem.mail", ("pbem.services", *ENTRY_POINTS))


def test_services_import_no_entry_point() -> None:
    assert not _offences("pbem.services", ENTRY_POINTS)


def test_the_store_imports_no_service_and_no_entry_point() -> None:
    assert not _offences("pbem.store", ("pbem.services", "pbem.mail", *ENTRY_POINTS))


@pytest.mark.parametrize(
    "layer", ["pbem.engine", "pbem.ai", "pbem.events", "pbem.store", "pbem.mail", "pbem.services"]
)
def test_each_layer_exists(layer: str) -> None:
    """The checks above hold for something: a renamed layer would pass them all empty."""
    assert any(_inside(m, layer) for m in MODULES)


# The services by area (docs/architecture.md, "The services by area"): the core that every
# use case is given, then the areas, each importing only the core and the areas before it.

#: The areas of ``pbem/services/`` in their order: one may import those before it, never after.
SERVICE_AREAS = ("core", "mailing", "play", "records", "accounts", "events", "scheduled")


def _area(module: str) -> str | None:
    """The area of a module under ``pbem.services`` ("" for one at the top), else None."""
    if not _inside(module, "pbem.services") or module == "pbem.services":
        return None
    rest = module.removeprefix("pbem.services.").split(".")
    in_folder = len(rest) > 1 or MODULES[module].name == "__init__.py"
    return rest[0] if in_folder else ""


def test_the_core_of_the_services_imports_no_use_case() -> None:
    """Every use case is given the core (its env, errors, the replayed log, the access
    log...); the core reaches no use case, so no use case is a dependency of another's
    foundations."""
    offences = sorted(
        f"{module} imports {target}"
        for module in MODULES
        if _area(module) == "core"
        for target in _pbem_edges(module)
        if _area(target) not in (None, "core")
    )
    assert any(_area(m) == "core" for m in MODULES)
    assert not offences


def test_each_area_of_the_services_imports_only_the_core_and_the_areas_before_it() -> None:
    offences = sorted(
        f"{module} imports {target}"
        for module in MODULES
        if _area(module) in SERVICE_AREAS
        for target in _pbem_edges(module)
        if _area(target) is not None
        and (
            _area(target) not in SERVICE_AREAS
            or SERVICE_AREAS.index(_area(target)) > SERVICE_AREAS.index(_area(module))
        )
    )
    assert not offences


def _documented_services() -> set[str]:
    """The module files named in docs/architecture.md's tree of the services: a token
    ending in ``/`` opens a folder, the ``.py`` tokens after it are its modules."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    block = text.split("<!-- services tree -->", 1)[1].split("```", 2)[1]
    folder, files = "", set()
    for token in block.split():
        if token.endswith("/"):
            folder = token.removeprefix("pbem/services/")
        elif token.endswith(".py"):
            files.add(folder + token)
    return files


def test_the_architecture_doc_names_every_module_of_the_services_and_no_other() -> None:
    services = PACKAGE / "services"
    actual = {str(p.relative_to(services)) for p in services.rglob("*.py")}
    actual = {p for p in actual if not p.endswith("__init__.py")}
    documented = _documented_services()
    assert sorted(actual - documented) == [], "modules missing from docs/architecture.md"
    assert sorted(documented - actual) == [], "docs/architecture.md names modules that are gone"


def test_every_module_of_the_services_sits_in_an_area() -> None:
    """No use case at the top of ``pbem/services/``, and no folder the order above does not
    name: a module put there would escape the order of the areas."""
    outside = [m for m in MODULES if _area(m) is not None and _area(m) not in SERVICE_AREAS]
    assert sorted(outside) == []


#: What the web tier may take from the store: the connection's errors and the models as
#: types; every row it shows comes through a service.
WEB_FROM_STORE = ("pbem.store.db", "pbem.store.models")


def test_the_web_tier_reads_no_recorder_of_the_store() -> None:
    offences = sorted(
        f"{module} imports {target}"
        for module in MODULES
        if _inside(module, "pbem.web")
        for target in _pbem_edges(module)
        if _inside(target, "pbem.store") and target not in WEB_FROM_STORE
    )
    assert not offences


def test_the_web_tier_keeps_no_file_itself() -> None:
    """Uploaded record files are kept and pruned by ``services/records/uploads.py``; a
    blueprint bounds the bytes and calls it (no ``os``, no writing or deleting a file)."""
    offences = sorted(
        module
        for module, path in MODULES.items()
        if _inside(module, "pbem.web")
        and (
            "os" in _graph()[module]
            or any(w in path.read_text() for w in (".write_bytes(", ".unlink(", "os.utime("))
        )
    )
    assert not offences
