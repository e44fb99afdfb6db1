"""The resources of one account context.

- ``sevdesk://reference/{kind}``: reference data as JSON (tax rules, booking accounts, units,
  countries, payment methods); listed.
- ``sevdesk://invoices/{id}/pdf``, ``sevdesk://credit-notes/{id}/pdf``,
  ``sevdesk://orders/{id}/pdf``: the document's PDF as a blob, rendered with
  ``preventSendBy=true`` so reading never marks a document as sent; offered as templates.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from typing import Final, get_args

import msgspec

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.domain import reference
from sevdesk_mcp.domain.documents import detail as document_detail
from sevdesk_mcp.domain.documents.kinds import KINDS, KindName
from sevdesk_mcp.errors import (
    INTERNAL_ERROR,
    NotFoundError,
    ProtocolError,
    ResourceNotFoundError,
    ToolError,
    UpstreamError,
)
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.mcp.context import RequestContext

_PDF: Final = re.compile(r"^sevdesk://(invoices|credit-notes|orders)/([1-9][0-9]{0,14})/pdf$")
_REFERENCE: Final = re.compile(r"^sevdesk://reference/([a-z-]{1,40})$")
_BY_RESOURCE: Final[dict[str, KindName]] = {k.resource: k.name for k in KINDS.values()}
REFERENCE_KINDS: Final[tuple[reference.Kind, ...]] = get_args(reference.Kind)
MAX_REFERENCE_ITEMS: Final = 5000


def with_article(noun: str) -> str:
    """:returns: ``noun`` with its indefinite article ("an invoice", "a credit note")."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


class SevdeskResources:
    """Implements the core's ``ResourceProvider`` for one account."""

    def __init__(self, account: AccountContext) -> None:
        self._account = account

    def list_resources(self, ctx: RequestContext) -> Sequence[JsonObject]:
        """:returns: the reference data resources."""
        return [
            {
                "uri": f"sevdesk://reference/{k.replace('_', '-')}",
                "name": k.replace("_", " "),
                "description": f"sevDesk reference data: {k.replace('_', ' ')} with their ids",
                "mimeType": "application/json",
            }
            for k in REFERENCE_KINDS
        ]

    def list_templates(self, ctx: RequestContext) -> Sequence[JsonObject]:
        """:returns: the document PDF templates."""
        return [
            {
                "uriTemplate": f"sevdesk://{k.resource}/{{id}}/pdf",
                "name": f"{k.label} PDF",
                "description": f"The PDF of {with_article(k.label)}, never marking it as sent",
                "mimeType": "application/pdf",
            }
            for k in KINDS.values()
        ]

    async def read_resource(self, uri: str, ctx: RequestContext) -> Sequence[JsonObject]:
        """:returns: the contents of ``uri``.

        :raises ResourceNotFoundError: for an unknown URI or a document that does not exist.
        :raises ProtocolError: -32603 with a trusted message if sevDesk cannot be read.
        """
        try:
            return await self._read(uri)
        except NotFoundError:
            raise ResourceNotFoundError(uri) from None
        except (UpstreamError, ToolError) as exc:
            raise ProtocolError(INTERNAL_ERROR, str(exc)) from None

    async def _read(self, uri: str) -> Sequence[JsonObject]:
        client = self._account.require_client()
        if match := _PDF.match(uri):
            kind = _BY_RESOURCE[match.group(1)]
            _, data = await document_detail.fetch_pdf(client, kind, int(match.group(2)))
            blob = base64.b64encode(data).decode("ascii")
            return [{"uri": uri, "mimeType": "application/pdf", "blob": blob}]
        match = _REFERENCE.match(uri)
        name = match.group(1).replace("-", "_") if match else ""
        if name not in REFERENCE_KINDS:
            raise ResourceNotFoundError(uri)
        data_kind = next(k for k in REFERENCE_KINDS if k == name)
        listed = await reference.reference_data(
            client, data_kind, query=None, limit=MAX_REFERENCE_ITEMS
        )
        text = msgspec.json.encode(listed).decode("utf-8")
        return [{"uri": uri, "mimeType": "application/json", "text": text}]
