"""Domain errors say what is wrong and the next step as data; tools/ name the tool that takes it.

Also: the exceptions that lived beside their raisers belong to the one tree, and the sevDesk
client satisfies the domain's port.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sevdesk_mcp import errors
from sevdesk_mcp.domain.errors import Action, PreconditionError, say
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.errors import SevdeskMcpError, ToolError, UpstreamError
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.mcp import context, mrtr
from sevdesk_mcp.tools.definitions import ALL_TOOLS
from sevdesk_mcp.tools.remedies import REMEDIES, message, phrase
from tests.demo_account import fake_client

DOMAIN = Path(__file__).resolve().parents[2] / "sevdesk_mcp" / "domain"
TOOLS = {t.name: t for t in ALL_TOOLS}


def test_every_action_names_a_tool_with_arguments_it_takes() -> None:
    assert set(REMEDIES) == set(Action)
    for action, call in REMEDIES.items():
        assert call.tool in TOOLS, action
        properties = TOOLS[call.tool].input_schema["properties"]
        assert isinstance(properties, dict)
        for name, value in call.arguments:
            schema = properties[name]
            assert isinstance(schema, dict)
            allowed = schema.get("enum", [value])
            assert isinstance(allowed, list)
            assert value in allowed, (action, name, value)


def test_the_domain_names_no_tool() -> None:
    names = re.compile("|".join(sorted(TOOLS)))
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(DOMAIN.glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if names.search(line)
    ]
    assert not found, "tool names in the domain:\n" + "\n".join(found)


def test_a_precondition_keeps_its_parts_and_says_them_plainly() -> None:
    error = PreconditionError(
        "Invoice 7 is a draft. Finalize it first (",
        Action.FINALIZE,
        ").",
        record="Invoice 7",
        field="document_id",
    )
    assert isinstance(error, ToolError)
    assert str(error) == "Invoice 7 is a draft. Finalize it first (finalizing the document)."
    assert (error.record, error.field, error.actions) == (
        "Invoice 7",
        "document_id",
        (Action.FINALIZE,),
    )


def test_tools_name_the_tool_and_its_arguments() -> None:
    error = PreconditionError(
        "Reset it to open first (", Action.RESET_TO_OPEN, "), or list (", Action.LIST_UNITS, ")."
    )
    assert message(error) == (
        "Reset it to open first (sevdesk_reset_document with to=open), or list "
        "(sevdesk_reference_data with kind units)."
    )
    assert phrase(Action.FIND_UNMATCHED_TRANSACTIONS) == (
        "sevdesk_search_transactions with state unmatched"
    )
    assert say(("a ", Action.FIND_CONTACT), phrase) == "a sevdesk_search_contacts"


def test_other_errors_say_what_they_say() -> None:
    assert message(UpstreamError("sevDesk is down.")) == "sevDesk is down."
    assert message(ToolError("{Action.FIND_CONTACT}")) == "{Action.FIND_CONTACT}"


def test_the_moved_exceptions_are_in_the_one_tree() -> None:
    for cls in (errors.StartupError, errors.PeerRequestError, errors.InputUnavailableError):
        assert issubclass(cls, SevdeskMcpError)
    assert issubclass(PreconditionError, ToolError)
    assert context.PeerRequestError is errors.PeerRequestError  # where transports import it
    assert mrtr.InputUnavailableError is errors.InputUnavailableError


@pytest.mark.anyio
async def test_the_client_is_a_port() -> None:
    client = fake_client(build_demo())
    port: SevdeskPort = client  # checked by mypy: the client satisfies the port structurally
    try:
        assert await port.system_version() in ("1.0", "2.0")
    finally:
        await client.aclose()
