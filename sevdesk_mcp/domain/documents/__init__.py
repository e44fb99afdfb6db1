"""Sales documents (invoices, credit notes, orders): search and detail, drafts, binding steps,
lifecycle; an own invoice made an e-invoice (:mod:`.einvoice_preflight`: checked against the
XRechnung rules with the e-invoice reader; :mod:`.einvoice_finalize`: finalized as one)."""
