"""The demo books' public API token: the only part of the fake that start-up needs."""

from __future__ import annotations

from typing import Final

DEMO_TOKEN: Final = "5e7de5c0ffee0d3a0b1e2026ca5e0001"  # noqa: S105 - public demo token
