"""A witness of every write request the real client sends to the fake, in any test of the run:
each must be an entry of the endpoint table (:mod:`sevdesk_mcp.sevdesk.endpoints`), and its
JSON body's top-level fields among those the entry declares. The table is what the spec-drift
check holds against sevDesk's OpenAPI file; the read tools' requests are proven by
``tests/unit/test_spec_drift.py``, the writes here, by every write test there is.

Requests are told apart by the client's ``User-Agent``: tests that speak to the fake directly
(its own tests) are not the product's requests. At the end of the run, anything outside the
table is printed and fails the run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.exchange import Incoming
from sevdesk_mcp.sevdesk.client import USER_AGENT
from sevdesk_mcp.sevdesk.endpoints import find

SEEN: dict[tuple[str, str], set[str]] = {}  # (method, path) -> body fields sent
_original = FakeSevdesk._record


def _fields(body: bytes) -> set[str]:
    try:
        decoded: Any = json.loads(body) if body else {}
    except ValueError:  # a multipart upload: its form field names are not JSON
        return set()
    return set(decoded) if isinstance(decoded, dict) else set()


def _record(self: FakeSevdesk, incoming: Incoming, *, applied: bool) -> None:
    _original(self, incoming, applied=applied)
    if incoming.method != "GET" and incoming.headers.get("user-agent") == USER_AGENT:
        SEEN.setdefault((incoming.method, incoming.path), set()).update(_fields(incoming.body))


def outside_the_table() -> list[str]:
    """:returns: one line per write request or body field the table does not declare."""
    lines = []
    for (method, path), fields in sorted(SEEN.items()):
        entry = find(method, path)
        if entry is None:
            lines.append(f"{method} {path}: no entry in sevdesk_mcp/sevdesk/endpoints.py")
        elif extra := sorted(fields - set(entry.sends)):
            lines.append(f"{method} {path}: body fields {extra} not in {entry.template}'s sends")
    return lines


def pytest_sessionstart(session: pytest.Session) -> None:
    FakeSevdesk._record = _record  # type: ignore[method-assign]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    FakeSevdesk._record = _original  # type: ignore[method-assign]
    if lines := outside_the_table():
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("write requests outside the endpoint table:", red=True)
            for line in lines:
                reporter.write_line(f"  {line}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
