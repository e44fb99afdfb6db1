"""Articles (parts) with prices and stock (``docs/sevdesk-api.md`` §2.3).

sevDesk's ``name`` filter covers names only, so a search by name *or* part number reads the
whole list (paged, with an explicit ``limit``) and filters here. The stock comes from the part's
``stock`` field; when sevDesk leaves it out, from GET /Part/{id}/getStock (one per shown part,
read together), which answers a numeric **string** although the spec says integer (Q6). Units
are reference data, cached per account.
"""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.banking.accounts import decimal_scalar
from sevdesk_mcp.domain.common import omitted_note
from sevdesk_mcp.domain.contacts.read import Untrusted
from sevdesk_mcp.domain.money import HUNDRED, Money, money
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.vouchers import contains
from sevdesk_mcp.domain.reference import MAX_REFERENCE_ITEMS
from sevdesk_mcp.safety.fence import clean, fence
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.together import each
from sevdesk_mcp.sevdesk.wire_finance import Part

MAX_SCANNED: Final = 20_000
ACTIVE: Final = 100
STATUSES: Final = {50: "inactive", ACTIVE: "active"}


class PartSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One article. ``stock`` is ``None`` for articles without stock keeping (services)."""

    id: int
    part_number: str | None
    name: Untrusted | None
    unit: str | None
    tax_rate: Decimal | None
    net_price: Money | None
    gross_price: Money | None
    stock: Decimal | None
    status: str


class PartList(msgspec.Struct, frozen=True, kw_only=True):
    """Articles matching a search, by part number."""

    parts: list[PartSummary]
    total_matches: int
    note: str | None


async def search_parts(
    client: SevdeskPort, *, query: str | None, active_only: bool, limit: int
) -> PartList:
    """:returns: the articles whose name or part number contains ``query`` (case-insensitive).

    :raises UpstreamError: if sevDesk cannot be read.
    """
    page = await client.get_all("/Part", max_items=MAX_SCANNED)
    parts = wire.parse_all(page.items, Part)
    matches = sorted(
        (p for p in parts if _matches(p, query, active_only)), key=lambda p: p.partNumber or ""
    )
    units = await _units(client) if matches else {}
    shown = await each([functools.partial(_summary, client, p, units) for p in matches[:limit]])
    note = omitted_note(len(shown), len(matches), "articles")
    if page.truncated:
        note = f"Only the first {MAX_SCANNED} articles of the account were searched."
    return PartList(parts=shown, total_matches=len(matches), note=note)


async def current_stock(client: SevdeskPort, part_id: int) -> Decimal:
    """:returns: the stock sevDesk reports for one article.

    :raises MalformedResponseError: if the answer is not a finite number.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    # Q6: a numeric string such as "12", although the spec says integer; both are taken
    return decimal_scalar(await client.get(api_path("Part", part_id, "getStock")), "stock")


async def _summary(client: SevdeskPort, part: Part, units: dict[int, str]) -> PartSummary:
    net = part.priceNet if part.priceNet is not None else part.price
    return PartSummary(
        id=part.id,
        part_number=clean(part.partNumber) or None if part.partNumber else None,
        name=fence(part.name),
        unit=units.get(part.unity.id) if part.unity else None,
        tax_rate=part.taxRate,
        net_price=None if net is None else money(net, None),  # parts have no currency: EUR
        gross_price=_gross(part, net),
        stock=await _stock(client, part),
        status=STATUSES.get(part.status or 0, f"status {part.status}"),
    )


def _gross(part: Part, net: Decimal | None) -> Money | None:
    if part.priceGross is not None:
        return money(part.priceGross, None)
    if net is None or part.taxRate is None:
        return None
    return money(net * (1 + part.taxRate / HUNDRED), None)


async def _stock(client: SevdeskPort, part: Part) -> Decimal | None:
    if part.stockEnabled is False:
        return None
    if part.stock is not None:
        return part.stock
    return await current_stock(client, part.id)


async def _units(client: SevdeskPort) -> dict[int, str]:
    page = await client.get_all("/Unity", max_items=MAX_REFERENCE_ITEMS)  # one cached list
    units = wire.parse_all(page.items, wire.Named)
    return {u.id: clean(u.name) for u in units if u.name}


def _matches(part: Part, query: str | None, active_only: bool) -> bool:
    if active_only and part.status != ACTIVE:
        return False
    return contains(f"{part.name or ''} {part.partNumber or ''}", query)
