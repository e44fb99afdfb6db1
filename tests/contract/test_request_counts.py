"""Each read tool sends exactly the requests its answer needs (demo books, counted at the fake):
once with the account's reference data cold, once warm (reference lists come from the cache,
business records are read again). The minimum per tool is in docs/latency.md."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from tests.demo_account import demo_app
from tests.wire import open_wire

pytestmark = pytest.mark.anyio
V = "/Tools/bookkeepingSystemVersion"


def _ids(fake: FakeSevdesk) -> dict[str, int]:
    store = fake.store
    return {
        "invoice": next(i for i in store.invoices if i.status == 200).id,
        "contact": next(c for c in store.contacts if c.name).id,
        "voucher": next(iter(store.vouchers)).id,
    }


# tool, arguments, requests cold, requests warm ({id} is filled in)
CASES: list[tuple[str, dict[str, Any], list[str], list[str]]] = [
    ("sevdesk_server_status", {}, [], []),
    ("sevdesk_account_info", {}, [V, "/SevClient", "/SevUser"], ["/SevClient", "/SevUser"]),
    ("sevdesk_reference_data", {"kind": "tax_rules"}, ["/TaxRule"], []),
    (
        "sevdesk_reference_data",
        {"kind": "booking_accounts"},
        ["/AccountDatev", "/ReceiptGuidance/forAllAccounts"],
        [],
    ),
    ("sevdesk_search_contacts", {}, ["/Contact"], ["/Contact"]),
    (
        "sevdesk_get_contact",
        {"contact_id": "contact"},
        ["/Contact/{contact}", "/ContactAddress", "/CommunicationWay", "/Contact"],
        ["/Contact/{contact}", "/ContactAddress", "/CommunicationWay", "/Contact"],
    ),
    (
        "sevdesk_search_documents",
        {"kind": "invoice"},
        ["/Invoice", "/Invoice", "/Contact"],
        ["/Invoice", "/Invoice", "/Contact"],
    ),
    (
        "sevdesk_get_document",
        {"kind": "invoice", "document_id": "invoice"},
        [
            "/Invoice/{invoice}",
            "/Invoice/{invoice}/getPositions",
            V,
            "/Invoice",
            "/CreditNote",
            "/Contact/{contact_of_invoice}",
        ],
        [
            "/Invoice/{invoice}",
            "/Invoice/{invoice}/getPositions",
            "/Invoice",
            "/CreditNote",
            "/Contact/{contact_of_invoice}",
        ],
    ),
    (
        "sevdesk_document_pdf",
        {"kind": "invoice", "document_id": "invoice"},
        ["/Invoice/{invoice}/getPdf"],
        ["/Invoice/{invoice}/getPdf"],
    ),
    ("sevdesk_search_vouchers", {}, [V, "/Voucher"], ["/Voucher"]),
    (
        "sevdesk_get_voucher",
        {"voucher_id": "voucher"},
        ["/Voucher/{voucher}", "/VoucherPos", V, "/TaxRule", "/AccountDatev"],
        ["/Voucher/{voucher}", "/VoucherPos"],
    ),
    ("sevdesk_search_parts", {}, ["/Part", "/Unity"], ["/Part"]),
    (
        "sevdesk_list_bank_accounts",
        {},
        ["/CheckAccount", "/CheckAccountTransaction", "{balances}"],
        ["/CheckAccount", "/CheckAccountTransaction", "{balances}"],
    ),
    (
        "sevdesk_search_transactions",
        {},
        ["/CheckAccount", "/CheckAccountTransaction", "/CheckAccountTransactionLog"],
        ["/CheckAccount", "/CheckAccountTransaction", "/CheckAccountTransactionLog"],
    ),
    (
        "sevdesk_open_items",
        {},
        [V, *["/Invoice", "/CreditNote", "/Voucher"] * 2, "/Contact"],
        [*["/Invoice", "/CreditNote", "/Voucher"] * 2, "/Contact"],
    ),
    (
        "sevdesk_cash_position",
        {},
        [V, *["/Invoice", "/CreditNote", "/Voucher"] * 2, "/CheckAccount", "{balances}"],
        [*["/Invoice", "/CreditNote", "/Voucher"] * 2, "/CheckAccount", "{balances}"],
    ),
    (
        "sevdesk_changed_since",
        {},
        ["/Contact", "/Invoice", "/CreditNote", "/Order", "/Voucher", "/CheckAccountTransaction"],
        ["/Contact", "/Invoice", "/CreditNote", "/Order", "/Voucher", "/CheckAccountTransaction"],
    ),
]


def _expand(paths: list[str], fake: FakeSevdesk) -> Counter[str]:
    ids = _ids(fake)
    invoice = next(i for i in fake.store.invoices if i.id == ids["invoice"])
    names = {
        **{k: str(v) for k, v in ids.items()},
        "contact_of_invoice": str(invoice.contact.id if invoice.contact else 0),
    }
    out: list[str] = []
    for path in paths:
        if path == "{balances}":
            out += [f"/CheckAccount/{a.id}/getBalanceAtDate" for a in fake.store.check_accounts]
        else:
            out.append(path.format(**names))
    return Counter(out)


@pytest.mark.parametrize(("tool", "arguments", "cold", "warm"), CASES, ids=lambda c: str(c)[:40])
async def test_each_tool_sends_exactly_the_requests_it_needs(
    tool: str, arguments: dict[str, Any], cold: list[str], warm: list[str]
) -> None:
    fake = build_demo()
    ids = _ids(fake)
    args = {k: ids[v] if k.endswith("_id") else v for k, v in arguments.items()}
    async with open_wire(demo_app(fake=fake)) as wire:
        seen: list[Counter[str]] = []
        for _ in range(2):
            before = len(fake.requests)
            answer = await wire.modern("tools/call", {"name": tool, "arguments": args})
            assert not answer["result"].get("isError"), answer
            seen.append(Counter(r.path for r in fake.requests[before:]))
    assert seen == [_expand(cold, fake), _expand(warm, fake)]
