"""The real account's booking accounts, read into the overlay before it files a receipt.

A real account's AccountDatev ids are its own (they differ per chart and per account), so the
overlay's engine checks a receipt against the real account's accounts and receipt guidance,
not against the fake's built-in chart: ``GET /ReceiptGuidance/forAllAccounts`` gives each
guided account with the tax rules and rates it allows and its receipt types, and
``GET /AccountDatev`` the visible accounts without guidance (their numbers feed the overlay's
DATEV books). An account still on bookkeeping 1.0 has its ``GET /AccountingType`` booking
accounts read instead. The accounts are read once per rehearsal.
"""

from __future__ import annotations

import logging
from typing import Final

from sevdesk_mcp.fake.account_rules import Account, Rules
from sevdesk_mcp.fake.legacy import AccountingType
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.rehearsal.upstream import Upstream

log = logging.getLogger("sevdesk_mcp.rehearsal")

GUIDANCE_PATH: Final = "/ReceiptGuidance/forAllAccounts"
ACCOUNTS_PATH: Final = "/AccountDatev"
LEGACY_PATH: Final = "/AccountingType"
_PAGE: Final = 1000
_MAX_PAGES: Final = 20


def _text(value: JsonValue) -> str | None:
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None


def _ident(value: JsonValue) -> int | None:
    text = _text(value)
    return int(text) if text is not None and text.isdigit() else None


def _rules(value: JsonValue) -> Rules:
    """:returns: ``allowedTaxRules`` as (tax rule id, allowed rates) pairs."""
    out: list[tuple[int, tuple[str, ...]]] = []
    for rule in value if isinstance(value, list) else []:
        if not isinstance(rule, dict):
            continue
        ident, rates = _ident(rule.get("id")), rule.get("taxRates")
        if ident is not None and isinstance(rates, list):
            out.append((ident, tuple(str(r) for r in rates if isinstance(r, str))))
    return tuple(out)


def guided_account(item: JsonValue) -> Account | None:
    """:returns: one item of the real receipt guidance as an account of the engine, or
    ``None`` for an item without an account id or number."""
    if not isinstance(item, dict):
        return None
    ident, number = _ident(item.get("accountDatevId")), _text(item.get("accountNumber"))
    if ident is None or number is None:
        return None
    kinds = item.get("allowedReceiptTypes")
    receipt_types = tuple(k for k in kinds if isinstance(k, str)) if isinstance(kinds, list) else ()
    name = _text(item.get("accountName")) or number
    return Account(
        ident,
        number,
        name,
        _text(item.get("description")),
        receipt_types,
        _rules(item.get("allowedTaxRules")),
    )


def plain_account(record: JsonValue) -> Account | None:
    """:returns: one real AccountDatev record as an account without guidance, or ``None``."""
    if not isinstance(record, dict):
        return None
    ident, number = _ident(record.get("id")), _text(record.get("number"))
    if ident is None or number is None:
        return None
    hidden = _text(record.get("hidden")) in {"1", "true", "True"}
    name = _text(record.get("name")) or number
    return Account(ident, number, name, _text(record.get("description")), (), (), hidden)


async def _pages(upstream: Upstream, path: str) -> list[JsonValue]:
    """:returns: every object of the real list ``path``, page by page."""
    out: list[JsonValue] = []
    for page in range(_MAX_PAGES):
        params = {"limit": str(_PAGE), "offset": str(page * _PAGE)}
        objects = await upstream.objects(path, params)
        rows = objects if isinstance(objects, list) else []
        out.extend(rows)
        if len(rows) < _PAGE:
            break
    return out


async def real_accounts(upstream: Upstream) -> dict[int, Account]:
    """:returns: the real account's booking accounts by id: the guided ones with their
    guidance, the others without; empty when the real account answered neither list.

    :raises RehearsalRefusedError: never for these plain reads (a bug if it does).
    :raises httpx.HTTPError: when the real account cannot be reached.
    """
    found: dict[int, Account] = {}
    for record in await _pages(upstream, ACCOUNTS_PATH):
        account = plain_account(record)
        if account is not None:
            found[account.id] = account
    for item in await _pages(upstream, GUIDANCE_PATH):
        account = guided_account(item)
        if account is not None:
            found[account.id] = account
    if not found:
        log.warning("rehearsal: the real account listed no booking accounts")
    return found


def legacy_type(record: JsonValue) -> AccountingType | None:
    """:returns: one real AccountingType record (bookkeeping 1.0), or ``None``."""
    if not isinstance(record, dict):
        return None
    ident = _ident(record.get("id"))
    if ident is None:
        return None
    skr03, skr04 = _text(record.get("skr03")) or "", _text(record.get("skr04")) or ""
    return AccountingType(ident, _text(record.get("name")) or "", skr03, skr04)


async def real_accounting_types(upstream: Upstream) -> dict[int, AccountingType]:
    """:returns: the real account's 1.0 booking accounts by id.

    :raises httpx.HTTPError: when the real account cannot be reached.
    """
    found = (legacy_type(r) for r in await _pages(upstream, LEGACY_PATH))
    return {t.id: t for t in found if t is not None}


async def load_chart(store: Store, upstream: Upstream) -> None:
    """Put the real account's booking accounts into the overlay's ``store``: the 1.0 ones
    when the overlay runs bookkeeping 1.0, else the 2.0 accounts with their guidance.

    :raises httpx.HTTPError: when the real account cannot be reached.
    """
    if store.version == "1.0":
        store.own_accounting_types = await real_accounting_types(upstream)
    else:
        store.own_accounts = await real_accounts(upstream)
