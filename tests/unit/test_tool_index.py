"""The tool index (``tools/index.json``): equal to the definitions, listed without importing
the tools' code, and a tool whose code disagrees with its entry refused, never run."""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import msgspec
import pytest

from sevdesk_mcp import cli
from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import ToolDefinitionError
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.tools import catalog, definitions, lazy
from sevdesk_mcp.tools.lazy import INDEX_PATH, LazyTool, load_index
from tests.wire import open_wire

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]
ALL_ON = {
    "SEVDESK_ALLOW": "write,commit,external",
    "SEVDESK_TOOLSETS": ",".join(definitions.TOOLSETS),
}


def _entries() -> list[dict[str, object]]:
    entries: list[dict[str, object]] = json.loads(INDEX_PATH.read_bytes())
    return entries


def _tool_from(entry: dict[str, object]) -> LazyTool:
    return load_index(msgspec.json.encode([entry]))[0]


def test_the_index_is_generated_from_the_definitions() -> None:
    assert INDEX_PATH.read_bytes() == definitions.index_json(), (
        "tools/index.json is out of date: run `python -m sevdesk_mcp.tools.definitions`"
    )


def test_every_entry_resolves_to_its_definition() -> None:
    defined = {t.name: t for t in definitions.ALL_TOOLS}
    assert [t.name for t in catalog.tools()] == list(defined)
    for tool in load_index():  # fresh, unresolved
        assert tool.resolve() is defined[tool.name]


@pytest.mark.parametrize("structured", [True, False])
def test_a_listed_tool_is_the_definitions_tool_object(structured: bool) -> None:
    defined = {t.name: t for t in definitions.ALL_TOOLS}
    for tool in catalog.tools():
        assert tool.to_json(structured=structured) == defined[tool.name].to_json(
            structured=structured
        )


@pytest.mark.parametrize("era", ["modern", "legacy"])
async def test_tools_list_is_the_same_from_the_index_as_from_the_code(era: str) -> None:
    config = load_config(ALL_ON)
    lists = []
    for tools in (catalog.tools(), definitions.ALL_TOOLS):
        factory = ServerFactory(config, catalog_tools=tools, files="transfer")  # every tool
        app = factory.build(AccountContext(config=config))
        async with open_wire(app) as wire:
            if era == "modern":
                answer = await wire.modern("tools/list")
            else:
                await wire.initialize()
                answer = await wire.request("tools/list")
            lists.append(answer["result"]["tools"])
    assert lists[0] == lists[1]
    assert len(lists[0]) == len(definitions.ALL_TOOLS)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"tier": "read"}, "differs from the code in tier"),
        ({"toolset": "meta"}, "differs from the code in toolset"),
        ({"description": "Not the tool's own."}, "differs from the code in description"),
        ({"local_files": "read"}, "differs from the code in local_files"),
        ({"needs_files": "transfer"}, "differs from the code in needs_files"),
        ({"input_schema": {"type": "object", "properties": {}}}, "in input_schema"),
        ({"output_schema": {"type": "object", "properties": {}}}, "in output_schema"),
        ({"module": "contacts.read"}, "sevdesk_mcp.tools.contacts.read does not define it"),
        ({"module": "contacts_old"}, "is not a tool module"),
        ({"module": "../einvoice"}, "is not a tool module"),
        ({"module": "define"}, "is not a tool module"),  # in the package, but defines none
    ],
)
def test_an_entry_that_disagrees_with_the_code_is_refused(
    change: dict[str, object], why: str
) -> None:
    entry = next(e for e in _entries() if e["name"] == "sevdesk_create_document_draft")
    tool = _tool_from({**entry, **change})
    with pytest.raises(ToolDefinitionError, match="the tool index does not match") as caught:
        tool.resolve()
    assert why in str(caught.value)


@pytest.mark.parametrize("hint", ["read_only", "destructive", "idempotent", "open_world"])
def test_an_entry_with_other_annotations_is_refused(hint: str) -> None:
    entry = next(e for e in _entries() if e["name"] == "sevdesk_create_document_draft")
    hints = dict(entry["annotations"])  # type: ignore[call-overload]
    hints[hint] = not hints[hint]
    with pytest.raises(ToolDefinitionError, match="differs from the code in annotations"):
        _tool_from({**entry, "annotations": hints}).resolve()


@pytest.mark.parametrize(
    ("name", "change"),
    [
        ("sevdesk_search_contacts", {"title": "Another title"}),
        # a write tool the index calls a read tool: the read-only gate lets it through, the
        # check against the code refuses it
        ("sevdesk_create_contact", {"tier": "read"}),
    ],
)
async def test_a_call_of_a_refused_tool_runs_nothing_and_says_why(
    monkeypatch: pytest.MonkeyPatch, name: str, change: dict[str, object]
) -> None:
    entry = next(e for e in _entries() if e["name"] == name)
    module = importlib.import_module(f"sevdesk_mcp.tools.{entry['module']}")
    ran: list[object] = []

    async def spy(parsed: object, ctx: object) -> object:
        ran.append(parsed)
        raise AssertionError("the handler of a refused tool ran")

    spied = tuple(
        dataclasses.replace(t, handler=spy) if t.name == name else t for t in module.TOOLS
    )
    monkeypatch.setattr(module, "TOOLS", spied)
    stale = _tool_from({**entry, **change})
    config = load_config({})
    app = ServerFactory(config, catalog_tools=(stale,)).build(AccountContext(config=config))
    async with open_wire(app) as wire:
        answer = await wire.modern("tools/call", {"name": name, "arguments": {}})
    result = answer["result"]
    assert result["isError"] is True and ran == []
    text = result["content"][0]["text"]
    assert "the tool index does not match the code" in text
    assert "python -m sevdesk_mcp.tools.definitions" in text


async def test_a_tool_whose_code_cannot_be_imported_is_refused_naming_what_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(name: str) -> object:
        raise ModuleNotFoundError("No module named 'pypdf'", name="pypdf")

    monkeypatch.setattr(lazy, "importlib", SimpleNamespace(import_module=broken))
    entry = next(e for e in _entries() if e["name"] == "sevdesk_search_contacts")
    with pytest.raises(ToolDefinitionError, match="pypdf is missing") as caught:
        _tool_from(entry).resolve()
    assert "Reinstall the package" in str(caught.value)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"not json", "cannot be read"),
        (b'[{"name": "sevdesk_x"}]', "cannot be read"),
        (b"{}", "cannot be read"),
    ],
)
def test_an_unreadable_index_is_refused(data: bytes, problem: str) -> None:
    with pytest.raises(ToolDefinitionError, match=problem):
        load_index(data)


def test_a_listed_tool_module_missing_from_the_install_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lazy, "MODULE_NAMES", (*lazy.MODULE_NAMES, "contacts_old"))
    entry = next(e for e in _entries() if e["name"] == "sevdesk_search_contacts")
    with pytest.raises(ToolDefinitionError, match="contacts_old is missing"):
        _tool_from({**entry, "module": "contacts_old"}).resolve()


@pytest.mark.parametrize("tier", ["admin", "READ", " read"])
def test_an_index_naming_an_unknown_tier_is_refused(tier: str) -> None:
    entry = {**_entries()[0], "tier": tier}
    with pytest.raises(ToolDefinitionError, match="a tier that does not exist"):
        load_index(msgspec.json.encode([entry]))


def test_the_tool_modules_are_those_that_define_tools() -> None:
    package = Path(definitions.__file__).parent
    defining = {
        ".".join(path.relative_to(package).with_suffix("").parts)
        for path in package.rglob("*.py")
        if re.search(r"^TOOLS\b", path.read_text(encoding="utf-8"), re.MULTILINE)
    }
    assert set(lazy.MODULE_NAMES) == defining


def test_an_index_naming_a_tool_twice_is_refused() -> None:
    entry = _entries()[0]
    with pytest.raises(ToolDefinitionError, match="names a tool twice"):
        load_index(msgspec.json.encode([entry, entry]))


def test_starting_the_server_imports_no_tool_module() -> None:
    code = (
        "import sys; from sevdesk_mcp.accounts.context import AccountContext; "
        "from sevdesk_mcp.config import load_config; from sevdesk_mcp import cli; "
        "from sevdesk_mcp.server import ServerFactory; c = load_config({}); "
        "ServerFactory(c).build(AccountContext(config=c)); "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('sevdesk_mcp.'))))"
    )
    loaded = subprocess.run(  # a fresh interpreter: this one has imported everything
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    tool_modules = {m.__name__ for m in definitions.MODULES}
    assert "sevdesk_mcp.tools.catalog" in loaded
    assert tool_modules.isdisjoint(loaded)
    assert "sevdesk_mcp.domain.einvoice" not in loaded


def test_an_unreadable_index_stops_the_command_line_with_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "index.json"
    broken.write_bytes(b"[")
    code = (  # a process of its own: the command line sets up the process's logging
        "import pathlib, sys; from sevdesk_mcp.tools import lazy; "
        "lazy.INDEX_PATH = pathlib.Path(sys.argv[1]); "
        "from sevdesk_mcp import cli; sys.exit(cli.main(['--stdio', '--demo']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(broken)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == cli.EXIT_USAGE, done.stderr
    assert "the tool index cannot be read (DecodeError); reinstall the package" in done.stderr
    assert "Traceback" not in done.stderr
