"""Credit notes (``docs/sevdesk-api.md`` §2.5): the shared document endpoints plus the removed
``changeStatus`` (404).
"""

from __future__ import annotations

from sevdesk_mcp.fake.documents import CreditNote, CreditNotePos
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.routes.doc_common import DocumentKind, register_document_routes
from sevdesk_mcp.fake.wire import FakeError

router = Router()

CREDIT_NOTES: DocumentKind[CreditNote, CreditNotePos] = DocumentKind(
    name="CreditNote",
    number_key="creditNoteNumber",
    parent_key="creditNote",
    docs=lambda store: store.credit_notes,
    positions=lambda store: store.credit_note_positions,
)
register_document_routes(router, CREDIT_NOTES)


@router.route("PUT", "/CreditNote/{id}/changeStatus")
def change_status_removed(ctx: Context) -> Reply:
    """The endpoint was removed in 2024 (spec "Removed endpoint").

    :raises FakeError: always 404.
    """
    raise FakeError(404, f"The endpoint {ctx.path} was removed.")
