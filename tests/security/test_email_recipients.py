"""Recipients a human can check, and no header breaks (issue 12, finding 5)."""

from __future__ import annotations

from typing import Any

import pytest

from sevdesk_mcp.domain.documents.email_address import recipient
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.fake import build_demo
from tests.documents.commit_helpers import OPEN_INVOICE
from tests.wire import FORM, open_wire
from tests.writes.helpers import write_app, writes

pytestmark = pytest.mark.threat("issue-12-email")
SEND = "sevdesk_send_document_email"
LOOK_ALIKE = "kunde@ex\u0430mple.com"  # a Cyrillic a in the domain


async def _send(**overrides: Any) -> dict[str, Any]:
    fake = build_demo()
    arguments = {
        "kind": "invoice",
        "document_id": OPEN_INVOICE,
        "to_email": "kunde@example.com",
        "subject": "Ihre Rechnung",
        "text": "Guten Tag,\nanbei die Rechnung.",
        **overrides,
    }
    async with open_wire(write_app(fake)) as wire:
        params = {"name": SEND, "arguments": arguments}
        result: dict[str, Any] = (await wire.modern("tools/call", params, caps=FORM))["result"]
    assert writes(fake) == []
    return result


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"to_email": LOOK_ALIKE}, "mixes Cyrillic and Latin letters"),
        ({"cc_email": "chef@p\u0430ypal.de"}, "cc_email: the domain"),
        ({"subject": "Rechnung\nBcc: alle@example.com"}, "subject must be one line"),
        ({"subject": "Rechnung\rX"}, "subject"),
        ({"to_email": "Kunde <kunde@example.com>"}, "$.to_email"),
        ({"to_email": "a,b@example.com"}, "one plain email address"),
        ({"to_email": "kunde@example.com;x"}, "not a valid domain name"),
    ],
)
async def test_look_alikes_and_line_breaks_are_refused_before_anyone_is_asked(
    overrides: dict[str, Any], expected: str
) -> None:
    result = await _send(**overrides)
    assert result["isError"] is True and expected in result["content"][0]["text"]


@pytest.mark.anyio
async def test_an_international_domain_is_shown_in_both_forms_with_a_warning() -> None:
    result = await _send(to_email="info@müller.de")
    (form,) = result["inputRequests"].values()
    message = form["params"]["message"]
    assert "To: “info@xn--mller-kva.de” (internationalized domain" in message
    assert "shown in Unicode as “info@müller.de”" in message
    assert message.startswith("WARNING: An email cannot be recalled")
    assert "letters beyond plain ASCII" in message


@pytest.mark.anyio
async def test_a_line_break_in_a_contact_name_is_refused() -> None:
    fake = build_demo()
    arguments = {"kind": "organisation", "category": "customer", "name": "A GmbH\nB"}
    async with open_wire(write_app(fake)) as wire:
        params = {"name": "sevdesk_create_contact", "arguments": arguments}
        result = (await wire.modern("tools/call", params))["result"]
    assert result["isError"] is True and "name must be one line" in result["content"][0]["text"]
    assert writes(fake) == []


def test_plain_addresses_pass_unchanged_and_mixed_scripts_never() -> None:
    assert recipient("Kunde@Example.COM", "to_email").sent == "Kunde@example.com"
    with pytest.raises(ToolInputError, match="look-alike"):
        recipient("a@g\u043eogle.com", "to_email")  # Cyrillic o
    for broken in ("ab\n@example.com", "ab@exa\n.com"):  # the domain check stands alone
        with pytest.raises(ToolInputError):
            recipient(broken, "to_email")
