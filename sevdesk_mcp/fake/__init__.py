"""The fake sevDesk: a stateful, deterministic, in-memory sevDesk for tests and demo mode.

The product's real HTTP client talks to it unchanged, through :meth:`FakeSevdesk.transport`
or over HTTP on the loopback interface (:func:`serve_fake`, :func:`run_fake_server`). It
models the measured quirks of the real API listed in ``docs/sevdesk-api.md``; the deviations
register (``spec/DEVIATIONS.md``, section "sevDesk API") lists each one with its test.

The names below are imported on first use (PEP 562), so that ``sevdesk_mcp.fake.token`` can be
read at start-up without building the whole fake.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Final

from sevdesk_mcp.fake.token import DEMO_TOKEN

if TYPE_CHECKING:
    from sevdesk_mcp.fake.core import FakeSevdesk
    from sevdesk_mcp.fake.demo import DemoFacts, build_demo, build_demo_with_facts
    from sevdesk_mcp.fake.faults import Faults, RecordedRequest
    from sevdesk_mcp.fake.serve import run_fake_server, serve_fake

_HOMES: Final = {
    "FakeSevdesk": "core",
    "DemoFacts": "demo",
    "build_demo": "demo",
    "build_demo_with_facts": "demo",
    "Faults": "faults",
    "RecordedRequest": "faults",
    "run_fake_server": "serve",
    "serve_fake": "serve",
}

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


def __getattr__(name: str) -> object:
    """:returns: the exported name ``name``, importing its module on first use.

    :raises AttributeError: for a name the package does not export.
    """
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
