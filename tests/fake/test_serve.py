"""The fake served over HTTP on real loopback sockets, and the foreground demo server."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from typing import IO

import httpx
import pytest

from sevdesk_mcp.fake import DEMO_TOKEN, FakeSevdesk, run_fake_server, serve_fake
from tests.fake.helpers import assert_error

NEW_CONTACT = {"name": "Socket GmbH", "category": {"id": 3, "objectName": "Category"}}
HOLD_S = 90.0  # longer than every hang guard


def _client(base_url: str, token: str, timeout: float = 60.0) -> httpx.Client:
    return httpx.Client(base_url=base_url, headers={"Authorization": token}, timeout=timeout)


def test_served_fake_answers_over_real_sockets(fake: FakeSevdesk) -> None:
    with serve_fake(fake, host="127.0.0.1", port=0) as base_url, _client(base_url, fake.token) as c:
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/api/v1")
        version = c.get("/Tools/bookkeepingSystemVersion")
        created = c.post("/Contact", json=NEW_CONTACT)
        listed = c.get("/Contact", params={"name": "socket"})
        form = c.post("/Contact", data={"name": "Form GmbH", "category[id]": "3",
                                        "category[objectName]": "Category"})  # fmt: skip
        assert_error(c.get("/Contact", headers={"Authorization": f"Bearer {fake.token}"}), 401)
    assert version.json() == {"objects": {"version": "2.0"}}
    assert version.headers["content-type"] == "application/json"
    assert created.status_code == 201 and form.status_code == 201
    assert [x["name"] for x in listed.json()["objects"]] == ["Socket GmbH"]
    assert [r.path for r in fake.requests][:2] == ["/Tools/bookkeepingSystemVersion", "/Contact"]
    assert fake.requests[2].query == {"name": "socket"}


def test_served_faults(fake: FakeSevdesk) -> None:
    fake.faults.latency_s = 0.01
    fake.faults.fail_next(429, retry_after="3")
    fake.faults.reset_next()
    with serve_fake(fake) as base_url, _client(base_url, fake.token) as c:
        limited = c.get("/Contact")
        with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
            c.post("/Contact", json=NEW_CONTACT)
        assert c.get("/Contact").json() == {"objects": []}
    assert limited.status_code == 429 and limited.headers["retry-after"] == "3"


def test_served_timeout_after_write_applies_the_write(fake: FakeSevdesk) -> None:
    fake.faults.timeout_after_write_next()
    # Held past any stall of the client: only its own 0.1 s timeout ends the wait. The holding
    # thread is a daemon the server does not wait for when it stops.
    fake.faults.timeout_hold_s = HOLD_S
    with serve_fake(fake) as base_url:
        with _client(base_url, fake.token, timeout=0.1) as c, pytest.raises(httpx.ReadTimeout):
            c.post("/Contact", json=NEW_CONTACT)
        with _client(base_url, fake.token) as c:
            names = [x["name"] for x in c.get("/Contact").json()["objects"]]
    assert names == ["Socket GmbH"]
    assert fake.requests[0].applied is True


def test_served_timeout_closes_without_an_answer(fake: FakeSevdesk) -> None:
    fake.faults.timeout_after_write_next()
    fake.faults.timeout_hold_s = 0.0
    with (
        serve_fake(fake) as base_url,
        _client(base_url, fake.token) as c,
        pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)),
    ):
        c.post("/Contact", json=NEW_CONTACT)
    assert len(fake.store.contacts) == 1


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "::", "my.sevdesk.de"])
def test_only_loopback_hosts_are_served(fake: FakeSevdesk, host: str) -> None:
    with pytest.raises(ValueError, match="loopback only"), serve_fake(fake, host=host):
        pass  # pragma: no cover - never reached
    with pytest.raises(ValueError, match="loopback only"):
        run_fake_server(0, host=host)


@pytest.mark.parametrize("host", ["localhost", "::1"])
def test_other_loopback_hosts(fake: FakeSevdesk, host: str) -> None:
    try:
        server = serve_fake(fake, host=host)
        base_url = server.__enter__()
    except OSError as exc:  # pragma: no cover - a machine without IPv6
        pytest.skip(f"cannot bind {host}: {exc}")
    try:
        if host == "::1":
            assert base_url.startswith("http://[::1]:")
        with _client(base_url, fake.token) as c:
            assert c.get("/Tools/bookkeepingSystemVersion").status_code == 200
    finally:
        server.__exit__(None, None, None)


def _read_lines(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
def test_run_fake_server_serves_the_demo_until_ctrl_c() -> None:
    # Ctrl-C as a terminal delivers it, whatever the test runner passes on: started in the
    # background (``cmd &`` without job control) SIGINT arrives ignored, and Python leaves it so.
    code = (
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
        "from sevdesk_mcp.fake import run_fake_server; run_fake_server(0)"
    )
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(
        [sys.executable, "-c", code], stderr=subprocess.PIPE, text=True, env=env
    ) as proc:
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=_read_lines, args=(proc.stderr, lines), daemon=True)
        reader.start()
        try:
            first = lines.get(timeout=60)  # hang guards only
            second = lines.get(timeout=60)
            base_url = first.split()[-1]
            assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/api/v1")
            assert second.strip() == f"API token: {DEMO_TOKEN}"
            with _client(base_url, DEMO_TOKEN) as c:
                (client_row,) = c.get("/SevClient").json()["objects"]
            assert client_row["name"] == "Holzwerk Sonnenberg GmbH"
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=60) == 0
        finally:
            if proc.poll() is None:  # pragma: no cover - only when an assertion failed
                proc.kill()
            reader.join(timeout=60)
