"""How to do a rehearsed change for real: the tool that makes the same change at sevDesk.

Chosen from the request that made the change (a factory path names its own tool), else from
the object and the action. Nothing is ever replayed from a rehearsal: a person calls these tools
in a normal session, where each is previewed and approved again on the real books.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.safety.rehearsal import RehearsalChange

DOCUMENTS: Final = frozenset({"Invoice", "Order", "CreditNote"})
RECEIPTS: Final = frozenset({"Voucher"})
BY_PATH: Final = (
    ("createInvoiceReminder", "sevdesk_create_payment_reminder"),
    ("createFromInvoice", "sevdesk_credit_note_from_invoice"),
    ("createInvoiceFromOrder", "sevdesk_invoice_from_order"),
    ("cancelInvoice", "sevdesk_cancel_invoice"),
    ("sendViaEmail", "sevdesk_send_document_email"),
    ("uploadTempFile", "sevdesk_upload_receipt"),
    ("/Tag/", "sevdesk_tag"),
    ("/TagRelation", "sevdesk_tag"),
)
DOCUMENT_TOOLS: Final = {
    "created": "sevdesk_create_document_draft",
    "changed": "sevdesk_update_document_draft",
    "deleted": "sevdesk_delete_document_draft",
    "finalized": "sevdesk_finalize_document",
    "enshrined": "sevdesk_enshrine_document",
    "sent": "sevdesk_mark_document_sent",  # sendBy; by e-mail: sendViaEmail, above
    "booked": "sevdesk_book_payment",
    "cancelled": "sevdesk_cancel_invoice",
    "reset": "sevdesk_reset_document",
}
RECEIPT_TOOLS: Final = {
    "created": "sevdesk_create_receipt_draft",
    "changed": "sevdesk_update_receipt_draft",
    "deleted": "sevdesk_delete_receipt_draft",
    "finalized": "sevdesk_finalize_receipt",
    "enshrined": "sevdesk_enshrine_document",
    "booked": "sevdesk_book_match",
    "uploaded": "sevdesk_upload_receipt",
}
OTHER_TOOLS: Final = {
    ("Contact", "created"): "sevdesk_create_contact",
    ("Contact", "changed"): "sevdesk_update_contact",
    ("Part", "created"): "sevdesk_create_part",
    ("Part", "changed"): "sevdesk_update_part",
    ("CheckAccountTransaction", "booked"): "sevdesk_book_match",
    ("CheckAccountTransaction", "changed"): "sevdesk_mark_transaction_private",
    ("CheckAccountTransaction", "reset"): "sevdesk_undo_booking",
}
UNKNOWN: Final = "no single tool: check the change in sevDesk's own interface"


def tool_for(change: RehearsalChange) -> str:
    """:returns: the tool that makes ``change`` for real, or :data:`UNKNOWN` when none does."""
    for marker, tool in BY_PATH:
        if marker in change.path:
            return tool
    if change.object_name in DOCUMENTS:
        return DOCUMENT_TOOLS.get(change.action, UNKNOWN)
    if change.object_name in RECEIPTS:
        return RECEIPT_TOOLS.get(change.action, UNKNOWN)
    return OTHER_TOOLS.get((change.object_name, change.action), UNKNOWN)
