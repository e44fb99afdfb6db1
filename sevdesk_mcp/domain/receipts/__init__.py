"""Receipts (Belege, sevDesk vouchers): uploading the file, drafts checked against the receipt
guidance, finalizing, and suggestions of booking accounts (``docs/sevdesk-api.md`` §2.7, §3.6).

- :mod:`.guidance`: what sevDesk allows per booking account (ReceiptGuidance), the checks of
  every position and the suggestions (bookkeeping 2.0);
- :mod:`.accounting_types`: what bookkeeping 1.0 allows (accounting types, tax types);
- :mod:`.booking`: the checks and wire fields of the account's bookkeeping version;
- :mod:`.lines`: the positions a caller gives, their sums checked to the cent;
- :mod:`.suppliers`: the supplier matched to a contact (name, VAT id, IBAN) or named as new;
- :mod:`.drafts`: create, update and delete a draft (``saveVoucher``, ``DELETE``);
- :mod:`.finalize`: a draft becomes an open receipt (status 100);
- :mod:`.upload`: a local file to ``Voucher/Factory/uploadTempFile``;
- :mod:`.attached`: a receipt's file as sevDesk holds it (name, size, SHA-256), read back.
- :mod:`.abroad`: foreign suppliers: where a supplier is from, services supplied abroad, where a
  receipt entered at 0 % belongs (the VAT return reads the same rule); :mod:`.foreign`: what
  the previews say about VAT owed as a buyer;
- :mod:`.einvoice_voucher`, :mod:`.einvoice_lines`: a receipt suggested from a received
  e-invoice (read by ``domain/einvoice/``); :mod:`.einvoice_filing`: filed as a draft.

Payments and resets of receipts are the document lifecycle's (``domain/banking/payments.py``,
``domain/documents/resets.py``); reading receipts is :mod:`sevdesk_mcp.domain.receipts.vouchers`.
"""
