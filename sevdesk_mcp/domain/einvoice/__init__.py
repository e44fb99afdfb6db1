"""E-invoices: XRechnung (UBL 2.1, UN/CEFACT CII D16B) and ZUGFeRD/Factur-X PDFs read safely,
checked against EN 16931 and the XRechnung CIUS, turned into receipt suggestions; and the
preflight of an outgoing invoice (``docs/einvoice.md``).

- :mod:`.safexml`: every file through ``defusedxml``'s parser up to its root element (no DTD,
  entities or external references), then a size- and depth-limited tree (ADR 0010);
- :mod:`.pdf`: the invoice XML taken out of a ZUGFeRD/Factur-X PDF with ``pypdf`` under caps;
- :mod:`.model`: the one model of an invoice, whatever its syntax (money as ``Decimal``);
- :mod:`.ubl`, :mod:`.cii`: the two readers; :mod:`.read`: bytes in, invoice out;
- :mod:`.rules`: the EN 16931 and XRechnung rules, by official rule id;
- :mod:`.voucher`: a receipt suggestion; :mod:`.preflight`: an outgoing invoice checked.

Every refusal is one :class:`~sevdesk_mcp.errors.EInvoiceRefusedError` naming the reason; no
message quotes the file's content.
"""
