"""The reports toolset: open items, cash position, changes, VAT return, ZM, OSS, EÜR."""
