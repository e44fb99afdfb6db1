"""The port between a rehearsal (sevdesk_mcp/rehearsal/) and what shows it (tools, pages)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

import msgspec

if TYPE_CHECKING:
    import httpx


class RehearsalChange(msgspec.Struct, frozen=True):
    """One change a rehearsal applied to its overlay (never to sevDesk)."""

    at: datetime  # Europe/Berlin
    # "created" | "changed" | "deleted" | "finalized" | "booked" | "sent" | "enshrined"
    # | "cancelled" | "reset" | "uploaded"
    action: str
    object_name: str  # sevDesk's objectName: "Invoice", "Voucher", "CheckAccountTransaction", ...
    object_id: int | None
    number: str | None  # the document number where it has one (RE-1043)
    summary: (
        str  # one English line a person can check: "Invoice RE-1043 finalized (1,190.00 EUR gross)"
    )
    method: str  # the request that did it: "PUT"
    path: str  # "/Invoice/123/sendBy"


class RehearsalLog(Protocol):
    """What a rehearsal tells: its changes, the refusals, the real account for reads."""

    def changes(self) -> Sequence[RehearsalChange]:
        """The changes in the order they were applied."""
        ...

    def upstream_refused(self) -> int:
        """Requests the guard refused to send upstream (should stay 0: they go to the overlay)."""
        ...

    def real_transport(self) -> httpx.AsyncBaseTransport:
        """GETs of the real account only, past the overlay (for "before" figures).

        :raises RehearsalRefusedError: (from the transport) for anything but a plain read.
        """
        ...
