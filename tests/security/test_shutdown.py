"""Threat case H09 at shutdown: stopping while a write waits for sevDesk.

Issue 12, finding 6: on stdio, SIGTERM while a write waited for sevDesk ended the process at
once and left ``executing`` without a closing audit line; over HTTP the shielded write kept the
process alive past the 10 s grace (18 s measured: until the write's own upstream timeout).
Now every transport stops reading, gives running calls one grace period, then forces the stop:
a write still waiting ends and is audited as ``outcome_unknown`` before the process exits.

The grace is injected (a fraction of a second) and the write is held by the fake for longer
than every hang guard, with the client's own read timeout and budget far longer still: only the
grace can end the write before a guard does. Timeouts here only guard against a hang, they never
measure.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import DEMO_TOKEN, FakeSevdesk, build_demo, serve_fake
from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.service.serve import bind_service
from sevdesk_mcp.http.settings import HttpSettings
from sevdesk_mcp.mcp import stdio
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.dispatcher import Dispatcher
from sevdesk_mcp.mcp.shutdown import SHUTDOWN_GRACE_S
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import Limits as ClientLimits
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer
from tests.demo_account import DEMO_URL
from tests.http.helpers import SECRET as HTTP_SECRET
from tests.http.helpers import modern_body, modern_headers
from tests.http.process import http_env, http_server
from tests.wire import HANG_GUARD_S, meta

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]

HOLD_S = 90.0  # the fake holds the write longer than any guard: only the grace can end it
GRACE_S = 0.3  # the injected grace
CLIENT_S = 600.0  # the client's read timeout and budget: far past every guard and the hold
LONG_GRACE_S = 600.0  # a grace no write outlives here: only the write's end stops the server
TOOL = "sevdesk_update_contact"
UPDATE = {"name": TOOL, "arguments": {"contact_id": 410001, "name": "Neu"}}
# The client's own timeouts must not end the write (its default read timeout is 20 s).
NO_BUDGET = ClientLimits(read_s=CLIENT_S, budget_s=CLIENT_S)
# The real command line, with the grace shortened and the sevDesk client's read timeout and
# budget lengthened (to CLIENT_S) for the test.
RUNNER = (
    "import sys\n"
    "from sevdesk_mcp.mcp import stdio\n"
    "from sevdesk_mcp.sevdesk.client import Limits, SevdeskClient\n"
    "stdio.EOF_GRACE_S = float(sys.argv[1])\n"
    "LONG = Limits(read_s=float(sys.argv[2]), budget_s=float(sys.argv[2]))\n"
    "init = SevdeskClient.__init__\n"
    "SevdeskClient.__init__ = lambda self, **kw: init(self, **{**kw, 'limits': LONG})\n"
    "from sevdesk_mcp.cli import main\n"
    "sys.exit(main(['--stdio']))\n"
)


def audit_lines(path: Path) -> list[dict[str, Any]]:
    """:returns: the audit log's events, oldest first."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def closing_event(path: Path) -> str:
    """:returns: the last event of the one write call in the audit log."""
    lines = audit_lines(path)
    assert lines[0]["event"] == "executing"
    call = lines[0]["call"]
    return str([line for line in lines if line.get("call") == call][-1]["event"])


# --- stdio as a process: SIGTERM, SIGINT and EOF during a write -------------------------------


def clean_environment() -> dict[str, str]:
    """:returns: this process's environment without any SEVDESK_ setting."""
    return {k: v for k, v in os.environ.items() if not k.startswith("SEVDESK_")}


def start_server(base_url: str, audit: Path) -> subprocess.Popen[bytes]:
    env = {
        **clean_environment(),
        "PYTHONPATH": str(ROOT),
        "SEVDESK_API_URL": base_url,
        "SEVDESK_API_TOKEN": DEMO_TOKEN,
        "SEVDESK_ALLOW": "write",
        "SEVDESK_AUDIT_LOG": str(audit),
    }
    command = [sys.executable, "-c", RUNNER, str(GRACE_S), str(CLIENT_S)]
    pipe = subprocess.PIPE
    return subprocess.Popen(command, stdin=pipe, stdout=pipe, stderr=pipe, env=env, cwd=ROOT)


def wait_for_the_write(fake: FakeSevdesk, proc: subprocess.Popen[bytes]) -> None:
    """Return once the fake holds the write (a hang guard, not a measurement)."""
    give_up = time.monotonic() + HANG_GUARD_S
    while not any(r.method != "GET" for r in fake.requests):
        assert proc.poll() is None, "the server ended before the write reached sevDesk"
        assert time.monotonic() < give_up, "the write never reached sevDesk"
        time.sleep(0.02)


def stop(proc: subprocess.Popen[bytes], how: str) -> tuple[int, str]:
    """Stop the server ``how``: ``EOF``, or signal names joined by ``+`` (sent in that order).

    :returns: the exit status and stderr.
    """
    assert proc.stdin is not None and proc.stderr is not None
    if how == "EOF":
        proc.stdin.close()
    else:
        for name in how.split("+"):
            proc.send_signal(getattr(signal, name))
    status = proc.wait(timeout=HANG_GUARD_S)  # the server writes too little to fill a pipe
    return status, proc.stderr.read().decode()


@pytest.mark.threat("H09")
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "EOF", "SIGTERM+SIGINT+SIGTERM"])
def test_stopping_stdio_during_a_write_audits_its_outcome_before_exit(
    tmp_path: Path, how: str
) -> None:
    audit, fake = tmp_path / "audit.jsonl", build_demo()
    fake.faults.timeout_hold_s = HOLD_S
    fake.faults.timeout_after_write_next()
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {**UPDATE, "_meta": meta()},
    }
    with serve_fake(fake) as base_url, start_server(base_url, audit) as proc:
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(call).encode() + b"\n")
            proc.stdin.flush()
            wait_for_the_write(fake, proc)
            status, stderr = stop(proc, how)
        finally:
            proc.kill()  # after a failure only: a stopped server has exited already
    assert status == 0, stderr
    assert closing_event(audit) == "outcome_unknown"  # a second signal did not cut the grace
    assert "Traceback" not in stderr


# --- stdio in process, on both backends --------------------------------------------------------


class HeldWrites(httpx.AsyncBaseTransport):
    """The fake sevDesk, with every write held until ``release`` is set.

    The hold is bounded by the hang guard, so a server that does not end the write at the end
    of its grace fails the test (``guard_fired``) instead of hanging it.
    """

    def __init__(self, fake: FakeSevdesk) -> None:
        self._inner = fake.transport()
        self.held = anyio.Event()
        self.release = anyio.Event()
        self.guard_fired = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method != "GET":
            self.held.set()
            with anyio.move_on_after(HANG_GUARD_S) as guard:
                await self.release.wait()
            if guard.cancelled_caught:
                self.guard_fired = True
                raise httpx.ReadTimeout("held past the hang guard", request=request)
        return await self._inner.handle_async_request(request)


def write_apps(transport: HeldWrites, audit: Path) -> Callable[[], McpApp]:
    """:returns: what builds the app for a request, as the command line wires it (the shipped
    tools, the write tier, an audit log) on the fake behind ``transport``."""
    config = load_config(
        {"SEVDESK_ALLOW": "write", "SEVDESK_API_URL": DEMO_URL, "SEVDESK_AUDIT_LOG": str(audit)}
    )
    client = SevdeskClient(
        base_url=DEMO_URL,
        token=Secret(DEMO_TOKEN),
        gate=WriteGate(tiers=config.tiers, read_only=config.read_only, dry_run=config.dry_run),
        pacer=Pacer(rate_per_s=10_000, burst=10_000),
        limits=NO_BUDGET,
        transport=transport,
    )
    factory, account = ServerFactory(config), AccountContext(config=config, client=client)
    return lambda: factory.build(account)


class Stdio:
    """The stdio server on in-memory streams; stdin stays open until :meth:`eof`."""

    def __init__(self, app: McpApp) -> None:
        self._send, self._receive = anyio.create_memory_object_stream[bytes](10)
        self.answers: list[dict[str, Any]] = []
        self.server = stdio.StdioServer(Dispatcher(app), self._read, self._write)

    async def __aenter__(self) -> Stdio:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._send.aclose()
        await self._receive.aclose()

    async def _read(self) -> bytes:
        try:
            return await self._receive.receive()
        except anyio.EndOfStream:
            return b""

    async def _write(self, data: bytes) -> None:
        self.answers.append(json.loads(data))

    async def call(self) -> None:
        params = {**UPDATE, "_meta": meta()}
        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
        await self._send.send(json.dumps(call).encode() + b"\n")

    async def eof(self) -> None:
        await self._send.aclose()

    async def reading_stopped(self) -> None:
        # The peer closes once the server stops reading; the server offers no event for it.
        while self.server.peer.can_request:  # noqa: ASYNC110
            await anyio.sleep(0.01)


async def stop_stdio(wire: Stdio, stop: anyio.Event, how: str) -> None:
    if how == "EOF":
        await wire.eof()
    else:
        stop.set()


@pytest.mark.threat("H09")
@pytest.mark.parametrize("how", ["signal", "EOF"])
async def test_a_stdio_write_outliving_the_grace_ends_with_it_as_outcome_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setattr(stdio, "EOF_GRACE_S", GRACE_S)
    audit, transport = tmp_path / "audit.jsonl", HeldWrites(build_demo())
    stop = anyio.Event()
    async with Stdio(write_apps(transport, audit)()) as wire, anyio.create_task_group() as tg:
        tg.start_soon(wire.server.serve, stop)
        await wire.call()
        with anyio.fail_after(HANG_GUARD_S):
            await transport.held.wait()
        await stop_stdio(wire, stop, how)
    assert not transport.guard_fired, "the write outlived the grace"
    assert closing_event(audit) == "outcome_unknown"
    assert wire.answers == []  # cancelled at the end of the grace: no answer, no "cancelled"


@pytest.mark.threat("H09")
async def test_a_stdio_write_that_finishes_within_the_grace_is_done_and_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A grace far past the guard: the write is released well within it however slow the
    # machine, and the server must stop as soon as the write is done (not at the grace's end).
    monkeypatch.setattr(stdio, "EOF_GRACE_S", LONG_GRACE_S)
    audit, transport = tmp_path / "audit.jsonl", HeldWrites(build_demo())
    stop = anyio.Event()
    with anyio.fail_after(HANG_GUARD_S):
        async with Stdio(write_apps(transport, audit)()) as wire, anyio.create_task_group() as tg:
            tg.start_soon(wire.server.serve, stop)
            await wire.call()
            await transport.held.wait()
            stop.set()
            await wire.reading_stopped()
            transport.release.set()
    assert closing_event(audit) == "done"
    (answer,) = wire.answers
    assert answer["id"] == 7 and answer["result"]["structuredContent"]["status"] == "done"


# --- HTTP --------------------------------------------------------------------------------------


async def post_call(url: str, results: list[httpx.Response | Exception], **headers: str) -> None:
    async with httpx.AsyncClient(timeout=HANG_GUARD_S, trust_env=False) as client:
        try:
            response = await client.post(
                url,
                json=modern_body("tools/call", UPDATE),
                headers={**modern_headers("tools/call", TOOL), **headers},
            )
        except httpx.HTTPError as exc:
            results.append(exc)
        else:
            results.append(response)


def unknown_result(results: list[httpx.Response | Exception]) -> str:
    """:returns: the text of the one answer, a tool result that says its outcome is unknown."""
    (response,) = results
    assert isinstance(response, httpx.Response), response  # answered, not a dropped stream
    result = response.json()["result"]
    assert result["isError"] is True, result
    text = str(result["content"][0]["text"])
    assert "outcome_unknown" in text, text
    return text


@pytest.mark.threat("H09")
@pytest.mark.threat("I35-7a")
async def test_an_http_write_outliving_the_grace_ends_with_it_as_outcome_unknown(
    tmp_path: Path,
) -> None:
    audit, transport = tmp_path / "audit.jsonl", HeldWrites(build_demo())
    service = await bind_service(
        HttpSettings(host="127.0.0.1", port=0),
        write_apps(transport, audit),
        principal="bearer",
        limits=Limits(shutdown_grace_s=GRACE_S),
        access_log=AccessLog(sink=lambda line: None),
    )
    stop, results = anyio.Event(), list[httpx.Response | Exception]()
    async with anyio.create_task_group() as tg:
        tg.start_soon(service.run, stop)
        tg.start_soon(post_call, f"http://127.0.0.1:{service.port}/mcp", results)
        with anyio.fail_after(HANG_GUARD_S):
            await transport.held.wait()
        stop.set()
    assert not transport.guard_fired, "the write outlived the grace"
    assert closing_event(audit) == "outcome_unknown"
    call = audit_lines(audit)[0]["call"]
    assert call in unknown_result(results)  # told on its open response, then closed


@pytest.mark.threat("I35-7a")
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
async def test_sigterm_answers_a_write_still_sending_as_outcome_unknown(tmp_path: Path) -> None:
    """The real command line over HTTP with its real 10 s grace: SIGTERM while sevDesk holds
    the write; the client hears ``outcome_unknown`` with the call id before the server exits."""
    audit, fake = tmp_path / "audit.jsonl", build_demo()
    fake.faults.timeout_hold_s = HOLD_S
    fake.faults.timeout_after_write_next()
    results: list[httpx.Response | Exception] = []
    with serve_fake(fake) as base_url:
        env = http_env(
            SEVDESK_API_URL=base_url,
            SEVDESK_API_TOKEN=DEMO_TOKEN,
            SEVDESK_ALLOW="write",
            SEVDESK_AUDIT_LOG=str(audit),
        )
        async with http_server(env=env) as server, anyio.create_task_group() as tg:
            auth = {"authorization": f"Bearer {HTTP_SECRET}"}
            tg.start_soon(lambda: post_call(server.url, results, **auth))
            with anyio.fail_after(HANG_GUARD_S):
                while not any(r.method != "GET" for r in fake.requests):  # noqa: ASYNC110
                    await anyio.sleep(0.02)
            status = await server.terminate()
    assert status == 0, server.stderr
    assert closing_event(audit) == "outcome_unknown"
    text = unknown_result(results)
    assert audit_lines(audit)[0]["call"] in text and "Check the records in sevDesk" in text


def test_every_transport_has_the_one_documented_grace() -> None:
    assert SHUTDOWN_GRACE_S == stdio.EOF_GRACE_S == Limits().shutdown_grace_s
    assert SHUTDOWN_GRACE_S == 10.0  # as docs/remote.md and docs/security.md say
