"""The layers of the brief, enforced: every import in ``sevdesk_mcp/`` follows the table below.

``tools -> domain -> sevdesk``; ``mcp`` (the protocol core) knows nothing of sevDesk, tools,
domain or accounts; ``safety`` imports only errors, JSON types and itself; ``fake`` is imported
only by the command line (its demo wiring and ``fake-sevdesk``), tests and ``bench/``. Every
import counts: at module level, inside functions and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

PACKAGE: Final = "sevdesk_mcp"
ROOT: Final = Path(__file__).resolve().parents[2] / PACKAGE

# Every part may import the package root (``__version__``), the error tree and the JSON types.
COMMON: Final = frozenset({"", "errors", "jsontypes"})

# Part -> the other parts it may import (besides itself and COMMON).
LAYERS: Final[dict[str, frozenset[str]]] = {
    "jsontypes": frozenset(),  # imports nothing of the package (see by_table)
    "errors": frozenset(),  # imports only jsontypes (see by_table)
    "shared": frozenset(),  # Redis for several instances: the connection, keys and seals only
    "safety": frozenset({"shared"}),  # used by all; besides ``shared``, only errors and JSON types
    "mcp": frozenset(),  # the protocol core: no sevDesk, tools, domain or accounts
    "sevdesk": frozenset({"safety", "shared"}),
    "domain": frozenset({"sevdesk", "safety"}),
    "config": frozenset({"sevdesk", "safety"}),
    "accounts": frozenset({"sevdesk", "config", "safety"}),
    "tools": frozenset({"domain", "mcp", "accounts", "config", "safety"}),
    "resources": frozenset({"domain", "mcp", "accounts", "safety"}),
    "prompts": frozenset({"domain", "mcp", "accounts", "safety"}),
    "server": frozenset({"tools", "resources", "prompts", "mcp", "accounts", "config", "safety"}),
    "http": frozenset({"mcp", "config", "safety", "shared"}),
    "fake": frozenset(),  # an independent sevDesk: it shares nothing with the client
    "rehearsal": frozenset({"fake", "sevdesk", "safety"}),  # the real account under an overlay
    "cli": frozenset(
        {
            "sevdesk",
            "accounts",
            "config",
            "safety",
            "shared",
            "server",
            "mcp",
            "http",
            "fake",
            "tools",
            "rehearsal",
        }
    ),  # the composition root (and the tool reference, generated from the tools and the server)
    "__main__": frozenset({"cli"}),
}

# Single edges beyond the table (importing module or part, imported module) and why.
EXCEPTIONS: Final[dict[tuple[str, str], str]] = {
    ("sevdesk_mcp.mcp", "sevdesk_mcp.safety.redact"): (
        "the core's log lines and error answers pass the process's one redactor of secrets"
    ),
}


@dataclass(frozen=True, slots=True)
class Edge:
    """One import: where it is written, who imports and what."""

    where: str
    importer: str
    imported: str


def module_name(path: Path) -> str:
    """:returns: the dotted module name of a file of the package."""
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")[: len(module.split(".")) - node.level + is_package]
    return ".".join([*base, *([node.module] if node.module else [])])


def _targets(node: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = _absolute(node, module, is_package)
        for alias in node.names:  # ``from pkg import module`` imports pkg.module
            sub = f"{base}.{alias.name}"
            yield sub if _exists(sub) else base
    elif isinstance(node, ast.Call) and _is_import_call(node):
        first = node.args[0] if node.args else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            yield first.value


def _is_import_call(node: ast.Call) -> bool:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in {"import_module", "__import__"}


def _exists(dotted: str) -> bool:
    path = ROOT.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def edges() -> Iterator[Edge]:
    """:returns: every import of a ``sevdesk_mcp`` module by a ``sevdesk_mcp`` module."""
    for path in sorted(ROOT.rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            for target in dict.fromkeys(_targets(node, module, path.name == "__init__.py")):
                if target == PACKAGE or target.startswith(f"{PACKAGE}."):
                    where = f"{path.relative_to(ROOT.parent)}:{getattr(node, 'lineno', 0)}"
                    yield Edge(where, module, target)


def part(module: str) -> str:
    """:returns: the top-level part of the package a module belongs to (``""``: the root)."""
    return module.split(".")[1] if "." in module else ""


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(f"{prefix}.")


def exception_for(edge: Edge) -> tuple[str, str] | None:
    """:returns: the key of the exception that allows ``edge``, if one does."""
    for importer, imported in EXCEPTIONS:
        if _within(edge.importer, importer) and _within(edge.imported, imported):
            return importer, imported
    return None


def by_table(edge: Edge) -> bool:
    """:returns: whether the table alone allows ``edge``."""
    source, target = part(edge.importer), part(edge.imported)
    if source == target:
        return True
    if source == "jsontypes" or (source == "errors" and target != "jsontypes"):
        return False  # the two leaves below everything else
    return target in COMMON or target in LAYERS.get(source, frozenset())


def allowed(edge: Edge) -> bool:
    """:returns: whether the table or one of its exceptions allows ``edge``."""
    return by_table(edge) or exception_for(edge) is not None


def parts_present() -> set[str]:
    """:returns: the top-level parts of the package as they exist on disk."""
    found = {p.stem for p in ROOT.glob("*.py")} | {
        p.parent.name for p in ROOT.glob("*/__init__.py")
    }
    return found - {"__init__"}


def test_every_import_follows_the_layers() -> None:
    violations = [
        f"{e.where}: {e.importer} imports {e.imported} ({part(e.importer) or 'root'} may not "
        f"import {part(e.imported) or 'root'})"
        for e in edges()
        if not allowed(e)
    ]
    assert not violations, "imports against the layers:\n" + "\n".join(violations)


def test_every_part_has_a_row() -> None:
    missing = sorted(parts_present() - set(LAYERS))
    assert not missing, f"add a row to LAYERS saying what these may import: {missing}"


def test_every_exception_is_still_needed() -> None:
    used = {exception_for(e) for e in edges() if not by_table(e)}
    stale = sorted(set(EXCEPTIONS) - used)
    assert not stale, f"these exceptions allow nothing the table does not: remove them: {stale}"


def test_the_walk_sees_every_kind_of_import() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import sevdesk_mcp.errors\n"
        "from sevdesk_mcp import jsontypes\n"
        "if TYPE_CHECKING:\n"
        "    from sevdesk_mcp.sevdesk.client import SevdeskClient\n"
        "def f():\n"
        "    from sevdesk_mcp.fake import build_demo\n"
        "    importlib.import_module('sevdesk_mcp.tools')\n"
    )
    tree = ast.parse(source)
    found = [t for n in ast.walk(tree) for t in _targets(n, "sevdesk_mcp.mcp.x", False)]
    assert set(found) >= {
        "sevdesk_mcp.errors",
        "sevdesk_mcp.jsontypes",
        "sevdesk_mcp.sevdesk.client",
        "sevdesk_mcp.fake",
        "sevdesk_mcp.tools",
    }
    edge = Edge("x.py:5", "sevdesk_mcp.mcp.x", "sevdesk_mcp.sevdesk.client")
    assert not allowed(edge)


def test_relative_imports_resolve() -> None:
    node = ast.parse("from ..errors import ToolError").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute(node, "sevdesk_mcp.tools.registry", False) == "sevdesk_mcp.errors"
    node = ast.parse("from . import registry").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute(node, "sevdesk_mcp.tools", True) == "sevdesk_mcp.tools"


def test_the_fake_is_imported_only_by_the_command_line() -> None:
    importers = {part(e.importer) for e in edges() if part(e.imported) == "fake"} - {"fake"}
    assert importers <= {"cli", "rehearsal"}  # a rehearsal's overlay is the fake's engine


# The parts that may speak HTTP themselves (the brief: "domain/ ... No httpx"; tools reach
# sevDesk only through the domain's port). The command line and accounts/ build the clients
# (a transport passes through them), the fake serves one.
HTTP_LIBRARIES: Final = frozenset({"httpx", "httpcore", "h11"})
MAY_SPEAK_HTTP: Final = frozenset({"sevdesk", "http", "cli", "accounts", "fake", "rehearsal"})
# The rehearsal's port names the transport type of its real account (under TYPE_CHECKING only).
HTTP_TYPE_ONLY: Final = frozenset({"sevdesk_mcp.safety.rehearsal"})


def test_only_the_client_and_the_http_stack_import_an_http_library() -> None:
    violations: list[str] = []
    for path in sorted(ROOT.rglob("*.py")):
        module = module_name(path)
        if part(module) in MAY_SPEAK_HTTP or module in HTTP_TYPE_ONLY:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets = _targets(node, module, path.name == "__init__.py")
            violations.extend(
                f"{path.relative_to(ROOT.parent)}: imports {target}"
                for target in targets
                if target.split(".")[0] in HTTP_LIBRARIES
            )
    assert not violations, "HTTP libraries outside sevdesk/ and http/:\n" + "\n".join(violations)


def test_only_the_shared_state_imports_redis() -> None:
    """The optional ``redis`` package is imported in ``shared/`` alone (its stores use
    :class:`~sevdesk_mcp.shared.redis.SharedState`), so nothing else needs the extra."""
    violations: list[str] = []
    for path in sorted(ROOT.rglob("*.py")):
        module = module_name(path)
        if part(module) == "shared":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found = {t for n in ast.walk(tree) for t in _targets(n, module, path.name == "__init__.py")}
        violations.extend(
            f"{path.relative_to(ROOT.parent)}: imports {t}"
            for t in sorted(found)
            if t.split(".")[0] == "redis"
        )
    assert not violations, "redis outside shared/:\n" + "\n".join(violations)


# One level deeper: the rooms inside ``domain/``, ``tools/`` and ``http/``. A room is a
# subpackage; ``""`` is the package's own top-level modules (domain's kernel: port, errors,
# records, writes, money, reference data; the tool framework; the HTTP stack). Room -> the
# other rooms of the same package it may import. docs/architecture.md shows this table
# (``test_the_architecture_shows_the_tables``).
ROOMS: Final[dict[str, dict[str, frozenset[str]]]] = {
    "domain": {
        "": frozenset(),
        "contacts": frozenset({""}),
        "documents": frozenset({"", "contacts", "einvoice"}),
        "parts": frozenset({"", "contacts", "banking", "receipts"}),
        "banking": frozenset({"", "contacts", "documents", "receipts"}),
        "receipts": frozenset({"", "contacts", "documents", "einvoice"}),
        "einvoice": frozenset(),  # the e-invoice reader: not even the kernel (see below)
        "reconciliation": frozenset({"", "banking", "contacts", "documents", "receipts"}),
        "reports": frozenset({"", "banking", "contacts", "receipts"}),
        "tags": frozenset({""}),
    },
    "tools": {
        "": frozenset(),  # the framework knows no tool module (it lists them by name)
        "meta": frozenset({""}),
        "contacts": frozenset({""}),
        "documents": frozenset({"", "receipts"}),
        "receipts": frozenset({""}),
        "einvoice": frozenset({"", "receipts"}),
        "parts": frozenset({""}),
        "banking": frozenset({""}),
        "reports": frozenset({""}),
        "exports": frozenset({"", "receipts", "reports"}),
        "advanced": frozenset({""}),
        "tags": frozenset({""}),
    },
    "http": {
        "": frozenset(),  # the stack: connection, router, hardening, auth, settings, listeners
        "kit": frozenset({""}),
        "local": frozenset({"", "kit"}),
        "sessions": frozenset({""}),
        "service": frozenset({"", "sessions"}),
        "oauth": frozenset({"", "kit", "service", "sessions"}),
        "web": frozenset({"", "kit", "oauth"}),
    },
}
# The e-invoice reader (UBL, CII, ZUGFeRD, the EN 16931 and XRechnung rules) knows nothing of
# sevDesk: besides itself it imports only errors, JSON types and safety/. Its sevDesk glue lives
# in the rooms that use it: documents/einvoice_*.py (an own invoice checked and finalized as an
# e-invoice), receipts/einvoice_*.py (a received one suggested and filed as a receipt).
EINVOICE_READER: Final = f"{PACKAGE}.domain.einvoice"


def room(module: str) -> tuple[str, str] | None:
    """:returns: (package, room) of a module of ``domain``, ``tools`` or ``http``, else None."""
    names = module.split(".")
    if len(names) < 3 or names[1] not in ROOMS:
        return None
    is_room = (ROOT / names[1] / names[2] / "__init__.py").is_file()
    return names[1], names[2] if is_room else ""


def test_every_import_between_rooms_follows_the_rooms() -> None:
    violations = []
    for e in edges():
        source, target = room(e.importer), room(e.imported)
        if source is None or target is None or source[0] != target[0] or source == target:
            continue
        if target[1] not in ROOMS[source[0]].get(source[1], frozenset()):
            violations.append(f"{e.where}: {e.importer} imports {e.imported}")
    assert not violations, "imports against the rooms:\n" + "\n".join(violations)


def test_every_room_has_a_row() -> None:
    missing = [
        f"{package}/{p.parent.name}"
        for package, rows in ROOMS.items()
        for p in (ROOT / package).glob("*/__init__.py")
        if p.parent.name not in rows
    ]
    assert not missing, f"add a row to ROOMS saying what these may import: {missing}"


def test_the_einvoice_reader_knows_nothing_of_sevdesk() -> None:
    violations = [
        f"{e.where}: {e.importer} imports {e.imported}"
        for e in edges()
        if _within(e.importer, EINVOICE_READER)
        and not _within(e.imported, EINVOICE_READER)
        and part(e.imported) not in {*COMMON, "safety"}
    ]
    assert not violations, "the e-invoice reader imports sevDesk or the domain:\n" + "\n".join(
        violations
    )


ACYCLIC_ROOMS: Final = ("domain", "tools", "http")


def room_graph(package: str, imports: Iterable[Edge]) -> dict[str, set[str]]:
    """:returns: room -> the other rooms of ``package`` it imports (every import counts, as
    for :data:`ROOMS`)."""
    graph: dict[str, set[str]] = {name: set() for name in ROOMS[package]}
    for e in imports:
        source, target = room(e.importer), room(e.imported)
        if source and target and source[0] == target[0] == package and source != target:
            graph.setdefault(source[1], set()).add(target[1])
    return graph


def test_no_room_imports_itself_round_a_cycle() -> None:
    imports = list(edges())
    rings = [
        f"{package}: " + " <-> ".join(_room_name(package, r) for r in ring)
        for package in ACYCLIC_ROOMS
        for ring in cycles(room_graph(package, imports))
    ]
    assert not rings, "rooms importing each other, directly or round several:\n" + "\n".join(rings)


def test_the_room_table_has_no_cycle() -> None:
    rings = [
        f"{package}: " + " <-> ".join(_room_name(package, r) for r in ring)
        for package in ACYCLIC_ROOMS
        for ring in cycles({name: set(allowed) for name, allowed in ROOMS[package].items()})
    ]
    assert not rings, "ROOMS lets these rooms import each other:\n" + "\n".join(rings)


def test_the_cycle_check_finds_a_cycle_between_rooms() -> None:
    graph = {"": set(), "a": {"", "b"}, "b": {"c"}, "c": {"a", ""}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"": {"x"}, "x": {""}}) == [["", "x"]]
    assert cycles({"": set(), "x": {""}, "y": {"x", ""}}) == []
    domain = f"{PACKAGE}.domain"
    back = [  # the ring receipts -> reports -> receipts, through a subpackage of each
        Edge("a.py:1", f"{domain}.receipts.suggest.x", f"{domain}.reports.vat.y"),
        Edge("b.py:1", f"{domain}.reports.z", f"{domain}.receipts.w"),
        Edge("c.py:1", f"{domain}.receipts.w", f"{domain}.money"),
        Edge("d.py:1", f"{PACKAGE}.tools.receipts.v", f"{domain}.receipts.w"),
    ]
    assert cycles(room_graph("domain", back)) == [["receipts", "reports"]]
    assert cycles(room_graph("domain", back[1:])) == []


def _type_only(tree: ast.AST) -> set[ast.AST]:
    """:returns: the nodes under ``if TYPE_CHECKING:`` (never run, so never in a cycle)."""
    found: set[ast.AST] = set()
    for node in ast.walk(tree):
        test = node.test if isinstance(node, ast.If) else None
        name = getattr(test, "id", None) or getattr(test, "attr", None)
        if name == "TYPE_CHECKING" and isinstance(node, ast.If):
            found.update(n for child in node.body for n in ast.walk(child))
    return found


def runtime_graph() -> dict[str, set[str]]:
    """:returns: module -> the package modules it imports when run: at module level and
    inside functions (an import inside a function is still a cycle), not ``TYPE_CHECKING``."""
    graph: dict[str, set[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skipped = _type_only(tree)
        graph[module] = {
            target
            for node in ast.walk(tree)
            if node not in skipped
            for target in _targets(node, module, path.name == "__init__.py")
            if target.startswith(f"{PACKAGE}.") and target != module
        }
    return graph


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for child in graph.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """:returns: the import cycles of ``graph``: its strongly connected parts of more than
    one module (the modules each reaches and is reached from), each sorted."""
    reach = {node: _reach(graph, node) for node in graph}
    found: list[list[str]] = []
    done: set[str] = set()
    for node in graph:
        if node in done:
            continue
        ring = {node} | {other for other in reach[node] if node in reach.get(other, ())}
        done |= ring
        if len(ring) > 1:
            found.append(sorted(ring))
    return found


def test_no_module_imports_itself_round_a_cycle() -> None:
    found = cycles(runtime_graph())
    assert not found, "import cycles (also through imports inside functions):\n" + "\n".join(
        " <-> ".join(c) for c in found
    )


def test_the_cycle_check_finds_a_cycle_through_a_function() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    source = "def f():\n    from sevdesk_mcp.safety import files\n"
    tree = ast.parse(source)
    skipped = _type_only(tree)
    found = [t for n in ast.walk(tree) if n not in skipped for t in _targets(n, "m", False)]
    assert "sevdesk_mcp.safety.files" in found
    typed = ast.parse("if TYPE_CHECKING:\n    from sevdesk_mcp.safety import files\n")
    assert all(not isinstance(n, ast.ImportFrom) or n in _type_only(typed) for n in ast.walk(typed))


ARCHITECTURE: Final = ROOT.parent / "docs" / "architecture.md"


def doc_table(marker: str) -> dict[str, frozenset[str]]:
    """:returns: the table between ``<!-- marker -->`` and ``<!-- /marker -->`` of
    docs/architecture.md: first column (a backticked name) -> the backticked names of the
    second (``-`` for none)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    body = text.split(f"<!-- {marker} -->")[1].split(f"<!-- /{marker} -->")[0]
    rows: dict[str, frozenset[str]] = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        rows[cells[0].strip("`")] = frozenset(n.strip("` ") for n in cells[1].split(",")) - {"-"}
    return rows


def _room_name(package: str, name: str) -> str:
    return f"{package}/{name}/" if name else f"{package}/"


def test_the_architecture_shows_the_tables() -> None:
    """The pictures of docs/architecture.md are the tables this test reads."""
    assert doc_table("layers") == {k: v for k, v in LAYERS.items()}
    rooms = {
        _room_name(package, name): frozenset(_room_name(package, r) for r in allowed)
        for package, rows in ROOMS.items()
        for name, allowed in rows.items()
    }
    assert doc_table("rooms") == rooms
