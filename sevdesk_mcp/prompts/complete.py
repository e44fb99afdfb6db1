"""Suggestions for prompt arguments (``completion/complete``): contact names and document
numbers, read from sevDesk with a read-only client. The values are sevDesk's text, cleaned of
hidden characters and without fences; a prompt shows whatever is picked fenced again."""

from __future__ import annotations

import logging
from typing import Final

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.domain.contacts import read as contacts
from sevdesk_mcp.domain.documents import search as documents
from sevdesk_mcp.domain.documents.kinds import KindName
from sevdesk_mcp.errors import ToolError, UpstreamError
from sevdesk_mcp.prompts.model import TEXT, Completion
from sevdesk_mcp.safety.fence import clean, unfenced

MAX_VALUES: Final = 100
SEARCHED: Final = 20
_KINDS: Final[dict[Completion, KindName]] = {"invoice_number": "invoice", "order_number": "order"}
log = logging.getLogger("sevdesk_mcp")


async def suggest(account: AccountContext, what: Completion, typed: str) -> list[str]:
    """:returns: up to 100 values for ``what`` that contain ``typed``; none when sevDesk
    cannot be read or no account is connected (a suggestion is never worth an error)."""
    typed = typed.strip()
    if typed and not TEXT.match(typed):
        return []
    try:
        found = await _search(account, what, typed)
    except (UpstreamError, ToolError) as exc:
        log.info("no completion for %s: %s", what, exc)
        return []
    values = [clean(unfenced(v)) for v in found if v]
    return list(dict.fromkeys(v for v in values if v))[:MAX_VALUES]


async def _search(account: AccountContext, what: Completion, typed: str) -> list[str]:
    client = account.reader()
    api_url = account.config.api_url
    if what == "contact":
        listed = await contacts.search_contacts(
            client, api_url, query=typed or None, category="any", limit=SEARCHED
        )
        return [c.name or "" for c in listed.contacts]
    query = documents.Search(kind=_KINDS[what], number_contains=typed or None, limit=SEARCHED)
    found = await documents.search(client, api_url, query, today=account.today())
    return [d.number or "" for d in found.documents]
