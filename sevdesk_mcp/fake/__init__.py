"""The fake sevDesk: a stateful, deterministic, in-memory sevDesk for tests and demo mode.

The product's real HTTP client talks to it unchanged, through :meth:`FakeSevdesk.transport`
or over HTTP on the loopback interface (:func:`serve_fake`, :func:`run_fake_server`). It
models the measured quirks of the real API listed in ``docs/sevdesk-api.md``; the deviations
register (``spec/DEVIATIONS.md``, section "sevDesk API") lists each one with its test.
"""

from __future__ import annotations

from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo import DEMO_TOKEN, DemoFacts, build_demo, build_demo_with_facts
from sevdesk_mcp.fake.faults import Faults, RecordedRequest
from sevdesk_mcp.fake.serve import run_fake_server, serve_fake

__all__ = [
    "DEMO_TOKEN",
    "DemoFacts",
    "FakeSevdesk",
    "Faults",
    "RecordedRequest",
    "build_demo",
    "build_demo_with_facts",
    "run_fake_server",
    "serve_fake",
]
