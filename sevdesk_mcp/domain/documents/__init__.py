"""Sales documents (invoices, credit notes, orders): search and detail, drafts, binding steps,
lifecycle."""
