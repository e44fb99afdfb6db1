"""How many bytes the text content of each read tool's result may take (issue 39).

The text is what the model reads, and every byte of it costs the assistant tokens; a budget
keeps a result from growing unnoticed. Each budget holds on the demo books with every tier on,
for the call ``bench/result_sizes.py`` makes (no arguments, or the fewest a tool needs); the
second number is what that call measured when the budget was set. ``docs/tools.md`` shows the
table, and ``tests/results`` checks every read tool against it. Not measured: the two
e-invoice readers, which need a local file.
"""

from __future__ import annotations

from typing import Final

RESULT_BUDGETS: Final[dict[str, tuple[int, int]]] = {
    # tool: (budget in bytes, measured on the demo books)
    "sevdesk_server_status": (600, 361),
    "sevdesk_account_info": (500, 312),
    "sevdesk_reference_data": (14_000, 12_746),
    "sevdesk_search_contacts": (4_000, 3_602),
    "sevdesk_get_contact": (1_000, 640),
    "sevdesk_search_documents": (8_500, 7_512),
    "sevdesk_get_document": (1_500, 1_190),
    "sevdesk_document_pdf": (500, 204),
    "sevdesk_list_recurring_invoices": (700, 448),
    "sevdesk_search_vouchers": (9_000, 8_091),
    "sevdesk_get_voucher": (1_000, 682),
    "sevdesk_suggest_booking_account": (1_500, 1_009),
    "sevdesk_preflight_einvoice": (1_500, 1_229),
    "sevdesk_search_parts": (2_500, 2_084),
    "sevdesk_list_bank_accounts": (800, 496),
    "sevdesk_search_transactions": (9_500, 8_756),
    "sevdesk_suggest_matches": (7_500, 6_517),
    "sevdesk_open_items": (2_500, 1_901),
    "sevdesk_cash_position": (600, 343),
    "sevdesk_changed_since": (2_000, 1_610),
    "sevdesk_vat_return": (4_200, 3_790),
    "sevdesk_eu_sales_list": (1_000, 622),
    "sevdesk_oss_figures": (800, 411),
    "sevdesk_profit_and_loss": (5_000, 4_494),
    "sevdesk_export_csv": (500, 154),
    "sevdesk_export_datev": (500, 188),
    "sevdesk_list_tags": (500, 269),
}
