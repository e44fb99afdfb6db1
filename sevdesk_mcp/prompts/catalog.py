"""The workflow prompts (trusted text written here). Every step declares the tools it names;
the tool names are added when a step is rendered, so the text itself names none."""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.prompts.model import MONTH, NUMBER, PERIOD, Argument, Step, Workflow

CONTACT: Final = Argument("contact", "The customer or supplier, by name", completion="contact")
NUMBER_HINT: Final = "a document number of letters, digits, spaces and . _ / -"
FILE: Final = Argument(
    "file",
    "The file: a path inside the allowed folders, or an upload reference (upload:…)",
    hint="one line of at most 200 characters (a path or upload:<id>)",
)

MONTH_END: Final = Workflow(
    name="month_end_overview",
    title="Month-end overview",
    description="Where the books stand at the end of a month: open items, cash, unbooked "
    "bank transactions, changes and the VAT figures.",
    goal="Give me a month-end overview of the books, as a short report with the figures and "
    "what needs attention.",
    requires=("sevdesk_open_items",),
    arguments=(
        Argument("month", "The month, as YYYY-MM (default: the last month)", MONTH, "YYYY-MM"),
    ),
    steps=(
        Step("Check what this server may do and today's date.", ("sevdesk_server_status",)),
        Step("List open receivables and payables by age.", ("sevdesk_open_items",)),
        Step("Show the balances of the bank accounts.", ("sevdesk_cash_position",)),
        Step(
            "Count the unbooked bank transactions and the likely matches.",
            ("sevdesk_suggest_matches",),
        ),
        Step("List what changed in the month.", ("sevdesk_changed_since",)),
        Step("Show the month's VAT figures (UStVA boxes).", ("sevdesk_vat_return",)),
    ),
)

CHASE_OVERDUE: Final = Workflow(
    name="chase_overdue_invoices",
    title="Chase overdue invoices",
    description="Find overdue invoices, see who owes what, and remind the customers.",
    goal="Find my overdue invoices and help me remind the customers.",
    requires=("sevdesk_search_documents",),
    arguments=(
        CONTACT,
        Argument(
            "invoice_number",
            "One invoice, by its number (such as RE-1042)",
            NUMBER,
            NUMBER_HINT,
            completion="invoice_number",
        ),
    ),
    steps=(
        Step("Search the overdue invoices (overdue_only).", ("sevdesk_search_documents",)),
        Step("Read each customer's contact details.", ("sevdesk_get_contact",)),
        Step(
            "Offer the invoice PDF to attach or print; it never marks anything as sent.",
            ("sevdesk_document_pdf",),
        ),
        Step(
            "For a formal payment reminder (Mahnung) as a document: draft it and show it to me; "
            "it is sent like an invoice, after my approval.",
            ("sevdesk_create_payment_reminder",),
        ),
        Step(
            "Draft a friendly reminder text and show it to me; send it by email only after I "
            "said so (I approve the email before it goes out).",
            ("sevdesk_send_document_email",),
        ),
    ),
)

FILE_RECEIPT: Final = Workflow(
    name="file_receipt",
    title="File this receipt",
    description="Upload a receipt, suggest the booking account, draft it as a voucher, and "
    "put it into the books after approval.",
    goal="File this receipt in sevDesk.",
    requires=("sevdesk_upload_receipt", "sevdesk_create_receipt_draft"),
    arguments=(FILE,),
    steps=(
        Step("Upload the receipt file.", ("sevdesk_upload_receipt",)),
        Step("Find the supplier among the contacts.", ("sevdesk_search_contacts",)),
        Step(
            "Check for a receipt already filed with the same supplier, date and amount.",
            ("sevdesk_search_vouchers",),
        ),
        Step(
            "Suggest the booking account and tax rule, with the reason.",
            ("sevdesk_suggest_booking_account",),
        ),
        Step("Create the receipt draft and show it to me.", ("sevdesk_create_receipt_draft",)),
        Step(
            "Only when I ask for it: put it into the books (I approve it first).",
            ("sevdesk_finalize_receipt",),
        ),
    ),
)

CHECK_EINVOICE: Final = Workflow(
    name="check_einvoice",
    title="Check this e-invoice",
    description="Read an XRechnung or ZUGFeRD e-invoice, check it against EN 16931, and file it "
    "as a receipt.",
    goal="Check this e-invoice and tell me whether it is valid and what it bills.",
    arguments=(FILE,),
    steps=(
        Step(
            "Read and check the e-invoice; report the findings by rule, errors first.",
            ("sevdesk_read_einvoice",),
            feature="e-invoice",
        ),
        Step("Compare the supplier with the contacts.", ("sevdesk_search_contacts",)),
        Step(
            "Suggest the receipt: supplier, booking accounts and tax rule, with the reasons.",
            ("sevdesk_suggest_einvoice_receipt",),
            feature="e-invoice",
        ),
        Step(
            "Only when I ask for it: file it as a receipt draft with the e-invoice attached.",
            ("sevdesk_file_einvoice",),
            feature="e-invoice",
        ),
        Step(
            "Only when I ask for it: put the receipt into the books (I approve it first).",
            ("sevdesk_finalize_receipt",),
        ),
    ),
)

RECONCILE: Final = Workflow(
    name="reconcile_bank_account",
    title="Reconcile the bank account",
    description="Match unbooked bank transactions to invoices and receipts, and book the "
    "matches I confirm.",
    goal="Reconcile my bank account: match the unbooked transactions.",
    requires=("sevdesk_suggest_matches",),
    arguments=(Argument("bank_account", "The bank account, by name (default: all)"),),
    steps=(
        Step("List the bank accounts.", ("sevdesk_list_bank_accounts",)),
        Step(
            "Suggest matches for the unbooked transactions; show ambiguous ones as choices.",
            ("sevdesk_suggest_matches",),
        ),
        Step(
            "Book each match I confirm, one plan per approval.",
            ("sevdesk_book_match",),
        ),
        Step(
            "Mark private withdrawals or deposits I name as private.",
            ("sevdesk_mark_transaction_private",),
        ),
    ),
)

VAT_RETURN: Final = Workflow(
    name="prepare_vat_return",
    title="Prepare the VAT return",
    description="The VAT return figures (UStVA) of a period with their sources, the EU sales "
    "list and OSS, and what is still open before filing.",
    goal="Prepare my VAT return (Umsatzsteuer-Voranmeldung). I file it myself in ELSTER.",
    requires=("sevdesk_vat_return",),
    arguments=(
        Argument(
            "period",
            "The period: YYYY-MM, YYYY-Qn or YYYY",
            PERIOD,
            "YYYY-MM, YYYY-Qn or YYYY",
            required=True,
        ),
    ),
    steps=(
        Step("Show the UStVA boxes with their sources.", ("sevdesk_vat_return",)),
        Step(
            "List receipts still in draft in the period; they are not counted yet.",
            ("sevdesk_search_vouchers",),
        ),
        Step("Show the EU sales list (ZM) figures.", ("sevdesk_eu_sales_list",)),
        Step("Show the OSS figures.", ("sevdesk_oss_figures",)),
        Step("Offer a DATEV export for the tax adviser.", ("sevdesk_export_datev",)),
    ),
)

INVOICE_FROM_ORDER: Final = Workflow(
    name="invoice_from_order",
    title="Invoice a customer from an order",
    description="Turn an order (offer or order confirmation) into an invoice draft, finalize it "
    "after approval, and send it.",
    goal="Invoice the customer for this order.",
    requires=("sevdesk_get_document",),
    arguments=(
        Argument(
            "order_number",
            "The order, by its number (such as AB-1007)",
            NUMBER,
            NUMBER_HINT,
            required=True,
            completion="order_number",
        ),
        CONTACT,
    ),
    steps=(
        Step("Find the order by its number and read it.", ("sevdesk_search_documents",)),
        Step("Read the order with its positions.", ("sevdesk_get_document",)),
        Step(
            "Create the invoice draft from the order, with its positions and its link, and show "
            "it to me.",
            ("sevdesk_invoice_from_order",),
        ),
        Step(
            "If the customer needs an e-invoice (XRechnung, Leitweg-ID): check the draft first.",
            ("sevdesk_preflight_einvoice",),
            feature="e-invoice",
        ),
        Step(
            "Only when I ask for it: finalize the invoice (I approve it first).",
            ("sevdesk_finalize_document",),
        ),
        Step(
            "Only when I ask for it: send it by email (I approve recipient and text).",
            ("sevdesk_send_document_email",),
        ),
        Step(
            "Or, for a letter: deliver the PDF for printing and record it as sent by post; "
            "posting the letter is mine to do.",
            ("sevdesk_mark_document_sent",),
        ),
    ),
)

WORKFLOWS: Final[tuple[Workflow, ...]] = (
    MONTH_END,
    CHASE_OVERDUE,
    FILE_RECEIPT,
    CHECK_EINVOICE,
    RECONCILE,
    VAT_RETURN,
    INVOICE_FROM_ORDER,
)
