"""Calls of the document tools on the demo books, with a human approving through the form."""

from __future__ import annotations

from typing import Any

from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.mcp.app import McpApp
from tests.wire import FORM, open_wire
from tests.writes.helpers import approve, write_app

CUSTOMER = 410003  # Café Kastanie GmbH, with a billing address in Freiburg
OPEN_INVOICE = 700039  # RE-1039, open, 318.56 EUR gross
DRAFT_INVOICE = 700041  # a draft without number
DRAFT_CREDIT_NOTE = 720003  # GU-1003, a draft
LINE = {"name": "Tischlerarbeiten Theke", "quantity": "3", "unit_price": "120.00", "tax_rate": 19}


def app(fake: FakeSevdesk) -> McpApp:
    """:returns: the server with every tier on the demo books."""
    return write_app(fake)


async def approved(
    app: McpApp, name: str, answer: dict[str, Any] | None = None, /, **arguments: Any
) -> tuple[str, dict[str, Any]]:
    """Call a commit or external tool and answer its approval form.

    :returns: the form's message (the rendered preview) and the final ``tools/call`` result.
    """
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    async with open_wire(app) as wire:
        first = (await wire.modern("tools/call", params, caps=FORM))["result"]
        if first.get("isError") or "inputRequests" not in first:
            return "", first
        (form,) = first["inputRequests"].values()
        second = await wire.modern(
            "tools/call",
            {
                **params,
                "requestState": first["requestState"],
                "inputResponses": answer or approve(),
            },
            caps=FORM,
        )
    return str(form["params"]["message"]), second["result"]
