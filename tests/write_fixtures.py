"""Write tools for tests of the write flow (never shipped): finalize an invoice (commit) and
rename contacts (write), built on ``define_write_tool`` and run against the fake sevDesk."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.preview import Preview, Quoted, amount, fact, quoted, say
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.envelope import one
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.tools.define import Annotations
from sevdesk_mcp.tools.vocabulary import BINDING_ANNOTATIONS as BINDING
from sevdesk_mcp.tools.vocabulary import SevdeskId as Id
from sevdesk_mcp.tools.write_flow import define_write_tool

Name = Annotated[str, msgspec.Meta(max_length=100)]
CHANGE = Annotations(read_only=False, destructive=False, idempotent=True, open_world=True)


class FinalizeInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    invoice_id: Id
    dryRun: bool = False


class Finalized(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    number: str | None
    status: int


async def _prepare_finalize(args: FinalizeInput, client: SevdeskPort) -> Prepared[int]:
    invoice = one(await client.get(api_path("Invoice", args.invoice_id)))
    if str(invoice["status"]) != "100":
        raise ToolError("Only drafts can be finalized.")
    contact = invoice["contact"]
    assert isinstance(contact, dict)
    who = one(await client.get(api_path("Contact", int(str(contact["id"])))))
    preview = Preview(
        action=say(
            "Finalize invoice draft {0}", "Rechnungsentwurf {0} abschließen", args.invoice_id
        ),
        facts=[
            fact("Customer", "Kunde", quoted(str(who.get("name")))),
            fact("Gross", "Brutto", amount(Decimal(str(invoice["sumGross"])))),
            fact("Text", "Text", Quoted("line one\nline two")),
        ],
        warnings=[
            say("sevDesk assigns the invoice number now.", "sevDesk vergibt jetzt die Nummer.")
        ],
        irreversible=True,
    )
    return Prepared(preview, args.invoice_id)


async def _execute_finalize(
    args: FinalizeInput, plan: int, client: SevdeskPort, progress: Progress
) -> Finalized:
    await client.send(
        "PUT", api_path("Invoice", plan, "sendBy"), json={"sendType": "VPDF", "sendDraft": False}
    )
    progress.done(f"finalized invoice {plan}")
    invoice = one(await client.get(api_path("Invoice", plan)))
    return Finalized(
        id=plan, number=str(invoice["invoiceNumber"]), status=int(str(invoice["status"]))
    )


class RenameInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    contact_ids: Annotated[list[Id], msgspec.Meta(min_length=1, max_length=3)]
    name: Name
    dryRun: bool = False


class Renamed(msgspec.Struct, frozen=True, kw_only=True):
    renamed: list[int]


async def _prepare_rename(args: RenameInput, client: SevdeskPort) -> Prepared[list[int]]:
    preview = Preview(
        action=say("Rename contacts", "Kontakte umbenennen"),
        facts=[fact("New name", "Neuer Name", quoted(args.name))],
    )
    return Prepared(preview, list(args.contact_ids))


async def _execute_rename(
    args: RenameInput, plan: list[int], client: SevdeskPort, progress: Progress
) -> Renamed:
    for contact_id in plan:
        await client.send("PUT", api_path("Contact", contact_id), json={"name": args.name})
        progress.done(f"renamed contact {contact_id}")
    return Renamed(renamed=plan)


async def _execute_overreach(
    args: FinalizeInput, plan: int, client: SevdeskPort, progress: Progress
) -> Finalized:
    await client.send("PUT", api_path("Invoice", plan, "sendBy"), json={"sendType": "VPDF"})
    return Finalized(id=plan, number=None, status=0)  # never reached: the gate refuses


FINALIZE_INVOICE = define_write_tool(
    name="sevdesk_test_finalize_invoice",
    title="Finalize (test)",
    description="Test fixture: finalizes an invoice draft through the write flow.",
    toolset="testing",
    tier=Tier.COMMIT,
    annotations=BINDING,
    input=FinalizeInput,
    output=Finalized,
    prepare=_prepare_finalize,
    execute=_execute_finalize,
    locks=lambda a: (f"invoice/{a.invoice_id}",),
)
RENAME_CONTACTS = define_write_tool(
    name="sevdesk_test_rename_contacts",
    title="Rename (test)",
    description="Test fixture: renames contacts one by one through the write flow.",
    toolset="testing",
    tier=Tier.WRITE,
    annotations=CHANGE,
    input=RenameInput,
    output=Renamed,
    prepare=_prepare_rename,
    execute=_execute_rename,
    locks=lambda a: [f"contact/{i}" for i in a.contact_ids],
)
OVERREACH = define_write_tool(
    name="sevdesk_test_overreach",
    title="Overreach (test)",
    description="Test fixture: a write-tier tool that tries a commit-tier endpoint.",
    toolset="testing",
    tier=Tier.WRITE,
    annotations=CHANGE,
    input=FinalizeInput,
    output=Finalized,
    prepare=_prepare_finalize,
    execute=_execute_overreach,
    locks=lambda a: (f"invoice/{a.invoice_id}",),
)
WRITE_FIXTURES = (FINALIZE_INVOICE, RENAME_CONTACTS, OVERREACH)
