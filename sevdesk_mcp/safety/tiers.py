"""The four permission tiers (ADR 0003).

Every tool has exactly one tier. Reads and writes never share a tool.

========  ===============================================================  =======
tier      covers                                                           default
========  ===============================================================  =======
read      list, get, search, reports, PDF preview (with preventSendBy)     on
write     reversible changes: contacts, parts, drafts, deleting drafts     off
commit    binding or irreversible: finalize, book, cancel, enshrine        off
external  reaches third parties: send by email or letter                   off
========  ===============================================================  =======

The order (read < write < commit < external) is used to compare a tool's tier with an
endpoint's minimum tier: a ``write`` tool can never reach a ``commit`` endpoint.
"""

from __future__ import annotations

import enum


class Tier(enum.IntEnum):
    """A permission tier; ``str(tier)`` is its configuration name."""

    READ = 0
    WRITE = 1
    COMMIT = 2
    EXTERNAL = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, name: str) -> Tier:
        """:returns: the tier called ``name``.

        :raises ValueError: if there is no such tier.
        """
        try:
            return cls[name.strip().upper()]
        except KeyError:
            raise ValueError(name) from None


ALL_TIERS = frozenset(Tier)
DEFAULT_TIERS = frozenset({Tier.READ})
