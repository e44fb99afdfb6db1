"""Bank reconciliation: which unbooked transactions pay which open documents, and how each
match is booked (``docs/sevdesk-api.md`` §2.8, Q13, Q17, Q18, Q26, Q28).

- :mod:`.model`, :mod:`.text`, :mod:`.index`, :mod:`.score`, :mod:`.collective` and
  :mod:`.plan` are pure and deterministic: no I/O, no clock, the same answer for the same input.
  Candidates come from indexes (by amount, by document number, by IBAN, by name), never from
  comparing every transaction with every document.
- :mod:`.sources` reads what the scorer needs; :mod:`.suggest` is the read tool's use case;
  :mod:`.book`, :mod:`.private` and :mod:`.undo` are the write flows, reusing the payment
  rules of :mod:`sevdesk_mcp.domain.banking.payments` and
  :mod:`sevdesk_mcp.domain.documents.resets`.
"""
