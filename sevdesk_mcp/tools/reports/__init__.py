"""The reports toolset: open items, cash position, changes, VAT return, ZM, OSS, EÜR; and the
rehearsal toolset's report (``rehearsal``: offered while rehearsing, ``--rehearse``)."""
