"""The account and its reference data: tax rules, booking accounts, units, countries, payment
methods. This is sevDesk's own data (not third-party text), so it is cleaned but not fenced.

The client answers reference lists from the account's short-lived cache (``sevdesk/cache.py``);
the reads of one answer that do not depend on each other are made together."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from typing import Annotated, Final, Literal

import msgspec

from sevdesk_mcp.domain.common import omitted_note
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.fence import clean, fence
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.envelope import many
from sevdesk_mcp.sevdesk.together import both

MAX_REFERENCE_ITEMS: Final = 5000
RATE_WORDS: Final = {"ZERO": "0", "SEVEN": "7", "NINETEEN": "19"}
Kind = Literal["tax_rules", "booking_accounts", "units", "countries", "payment_methods"]


class AccountInfo(msgspec.Struct, frozen=True, kw_only=True):
    """The sevDesk account this server works with."""

    company: str | None
    account_id: int | None
    bookkeeping_system: str
    users: list[str]
    demo: bool
    today: Annotated[
        dt.date,
        msgspec.Meta(description="Today in Berlin (the demo books' today in demo mode)"),
    ]
    notes: list[str]


class ReferenceItem(msgspec.Struct, frozen=True, kw_only=True):
    """One entry of reference data."""

    id: int
    name: str | None
    code: str | None = None
    details: str | None = None


class ReferenceData(msgspec.Struct, frozen=True, kw_only=True):
    """A list of reference data."""

    kind: str
    items: list[ReferenceItem]
    total_matches: int
    note: str | None


async def account_info(client: SevdeskPort, *, demo: bool, today: dt.date) -> AccountInfo:
    """:returns: company, bookkeeping system version and users of the account, and ``today``
        (Berlin) for relative dates.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    version, sev_clients, sev_users = await both(
        client.system_version,
        lambda: client.get("/SevClient"),
        lambda: client.get_all("/SevUser", max_items=100),
    )
    clients = wire.parse_all(many(sev_clients), wire.Named)
    users = wire.parse_all(sev_users.items, wire.Named)
    notes = [
        "Bookkeeping system 2.0: documents use taxRule and booking accounts (accountDatev)."
        if version == "2.0"
        else "Bookkeeping system 1.0: documents use taxType and accountingType."
    ]
    if demo:
        notes.append("DEMO MODE: these are invented books in memory; nothing is real.")
    return AccountInfo(
        company=fence(clients[0].name) if clients else None,
        account_id=clients[0].id if clients else None,
        bookkeeping_system=version,
        users=[clean(_user_name(u)) for u in users],
        demo=demo,
        today=today,
        notes=notes,
    )


async def reference_data(
    client: SevdeskPort, kind: Kind, *, query: str | None, limit: int
) -> ReferenceData:
    """:returns: the reference data of ``kind`` whose name or code contains ``query``.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    items = await _LOADERS[kind](client)
    if query:
        needle = query.casefold()
        items = [i for i in items if needle in f"{i.name} {i.code} {i.details}".casefold()]
    return ReferenceData(
        kind=kind,
        items=items[:limit],
        total_matches=len(items),
        note=omitted_note(min(limit, len(items)), len(items), "entries"),
    )


async def _tax_rules(client: SevdeskPort) -> list[ReferenceItem]:
    rules = wire.parse_all(await _all(client, "/TaxRule"), wire.TaxRule)
    return [
        ReferenceItem(id=r.id, name=_text(r.name), code=r.code, details=_text(r.description))
        for r in sorted(rules, key=lambda r: r.id)
    ]


async def _booking_accounts(client: SevdeskPort) -> list[ReferenceItem]:
    # /AccountDatev lists only visible accounts and needs an explicit limit (Q42)
    listed, guides = await both(
        lambda: _all(client, "/AccountDatev"),
        lambda: client.get("/ReceiptGuidance/forAllAccounts"),
    )
    accounts = wire.parse_all(listed, wire.AccountDatev)
    guidance = wire.parse_all(many(guides), wire.ReceiptGuidance)
    rules = {g.accountDatevId: g for g in guidance}
    return [
        ReferenceItem(
            id=a.id, name=_text(a.name), code=a.number, details=_guidance_text(rules.get(a.id))
        )
        for a in sorted(accounts, key=lambda a: a.number or "")
        if not a.hidden
    ]


def _guidance_text(guide: wire.ReceiptGuidance | None) -> str | None:
    if guide is None:
        return None
    rules = "; ".join(
        f"tax rule {r.id} {r.name or ''} at {'/'.join(RATE_WORDS.get(t, t) for t in r.taxRates)} %"
        for r in guide.allowedTaxRules
    )
    types = ", ".join(t.lower() for t in guide.allowedReceiptTypes)
    text = f"for {types or 'any'} receipts; {rules}" if rules else f"for {types} receipts"
    return clean(text)


async def _units(client: SevdeskPort) -> list[ReferenceItem]:
    units = wire.parse_all(await _all(client, "/Unity"), wire.Named)
    return [ReferenceItem(id=u.id, name=_text(u.name), code=u.uneceTradeUnitCode) for u in units]


async def _countries(client: SevdeskPort) -> list[ReferenceItem]:
    countries = wire.parse_all(await _all(client, "/StaticCountry"), wire.Named)
    return [
        ReferenceItem(id=c.id, name=_text(c.name), code=c.code, details=_text(c.nameEn))
        for c in countries
    ]


async def _payment_methods(client: SevdeskPort) -> list[ReferenceItem]:
    methods = wire.parse_all(await _all(client, "/PaymentMethod"), wire.Named)
    return [ReferenceItem(id=m.id, name=_text(m.name or m.text)) for m in methods]


_LOADERS: Final[dict[Kind, Callable[[SevdeskPort], Awaitable[list[ReferenceItem]]]]] = {
    "tax_rules": _tax_rules,
    "booking_accounts": _booking_accounts,
    "units": _units,
    "countries": _countries,
    "payment_methods": _payment_methods,
}


async def _all(client: SevdeskPort, path: str) -> list[dict[str, JsonValue]]:
    return (await client.get_all(path, max_items=MAX_REFERENCE_ITEMS)).items


def _text(value: str | None) -> str | None:
    return clean(value) or None if value else None


def _user_name(user: wire.Named) -> str:
    full = " ".join(p for p in (user.firstName, user.lastName) if p)
    return full or user.username or user.name or f"user {user.id}"
