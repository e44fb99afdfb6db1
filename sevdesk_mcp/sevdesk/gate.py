"""The write gate: the third enforcement layer of the permission tiers (seed ADR 0003).

Every request that changes data (any non-GET, and the GETs that change state) must carry the
tier of the tool that makes it. It is refused **before sending** in read-only or dry-run mode,
without a tier, with a tier the configuration does not enable, or with a tier below the
endpoint's minimum (``paths.minimum_tier``). So a ``write`` tool can never finalize, book,
cancel or send, even by mistake.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from sevdesk_mcp.errors import WriteRefusedError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.paths import minimum_tier


class WriteGate(msgspec.Struct, frozen=True):
    """What the configuration allows."""

    tiers: frozenset[Tier]
    read_only: bool = False
    dry_run: bool = False

    def check(
        self,
        method: str,
        path: str,
        query: Mapping[str, str],
        tier: Tier | None,
        body: JsonObject | None = None,
    ) -> None:
        """Allow a request or refuse it; ``body`` decides for a ``saveVoucher`` (finalize).

        :raises WriteRefusedError: naming the reason and the setting that would allow it.
        """
        needed = minimum_tier(method, path, query, body)
        if needed is None:
            return
        action = f"{method} {path}"
        if self.read_only:
            raise WriteRefusedError(f"Refused {action}: SEVDESK_READ_ONLY is set.")
        if self.dry_run:
            raise WriteRefusedError(f"Refused {action}: dry-run mode sends no changes.")
        if tier is None:
            raise WriteRefusedError(f"Refused {action}: it changes data and no tier was declared.")
        if tier not in self.tiers:
            raise WriteRefusedError(f"Refused {action}: the {tier} tier is not enabled.")
        if tier < needed:
            raise WriteRefusedError(
                f"Refused {action}: it needs the {needed} tier, and the calling tool is {tier}."
            )
