"""Berlin calendar helpers for the tools layer, which does not import the sevDesk client."""

from __future__ import annotations

from sevdesk_mcp.sevdesk.dates import BERLIN, berlin_date, berlin_midnight, today

__all__ = ["BERLIN", "berlin_date", "berlin_midnight", "today"]
