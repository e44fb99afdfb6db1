"""The e-invoice reader: XRechnung (UBL 2.1, UN/CEFACT CII D16B) and ZUGFeRD/Factur-X PDFs read
safely and checked against EN 16931 and the XRechnung CIUS (``docs/einvoice.md``). It knows
nothing of sevDesk: besides itself it imports only errors, JSON types and ``safety/``; the
rooms that use it hold the glue (``receipts/einvoice_voucher.py``, ``einvoice_lines.py`` and
``einvoice_filing.py``: an incoming e-invoice suggested and filed as a receipt;
``documents/einvoice_preflight.py`` and ``einvoice_finalize.py``: an own invoice checked and
finalized as an e-invoice).

- :mod:`.safexml`: every file through ``defusedxml``'s parser up to its root element (no DTD,
  entities or external references), then a size- and depth-limited tree (ADR 0010);
- :mod:`.pdf`: the invoice XML taken out of a ZUGFeRD/Factur-X PDF with ``pypdf`` under caps;
- :mod:`.model`: the one model of an invoice, whatever its syntax (money as ``Decimal``);
- :mod:`.ubl`, :mod:`.cii`: the two readers; :mod:`.read`: bytes in, invoice out;
- :mod:`.rules`: the EN 16931 and XRechnung rules, by official rule id;
- :mod:`.taxcase`: the tax rule a received invoice takes; :mod:`.report`: a file read and checked.

Every refusal is one :class:`~sevdesk_mcp.errors.EInvoiceRefusedError` naming the reason; no
message quotes the file's content.
"""
