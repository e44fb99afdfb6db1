"""The local page listener (the HTTP stack's, in a thread of its own), its limits, the OS opener
and the approval store, in isolation."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import msgspec
import pytest

from sevdesk_mcp.cli import approval_pages
from sevdesk_mcp.http.kit.approval import preview_html
from sevdesk_mcp.http.kit.headers import LOCAL_HEADERS
from sevdesk_mcp.http.local.approval_page import ApprovalSite, cookie_name
from sevdesk_mcp.http.pages import PAGE_LIMITS, PageServer, Request, Response
from sevdesk_mcp.safety import open_url as opener
from sevdesk_mcp.safety.approval_local import Pages, PageServerError, SharedPages
from sevdesk_mcp.safety.approvals import Binding, MemoryApprovalStore
from sevdesk_mcp.safety.preview import Preview, Quoted, fact, say
from tests.clock import Clock
from tests.http.helpers import HANG_GUARD_S

pytestmark = pytest.mark.anyio
PREVIEW = Preview(action=say("Finalize invoice 1", "Rechnung 1 abschließen"))
BINDING = Binding("sevdesk_test_finalize_invoice", "args", "local")
SAFETY = Path(__file__).resolve().parents[2] / "sevdesk_mcp" / "safety"
LONG_DEADLINE_S = 10 * HANG_GUARD_S  # a server deadline no request here reaches


class Echo:
    """A page app that answers with the method, the body's length and the target."""

    headers = LOCAL_HEADERS
    max_body_bytes = 64

    def handle(self, request: Request) -> Response:
        if request.target == "/boom":
            raise RuntimeError("handler bug")
        return Response(200, f"{request.method} {len(request.body)} {request.target}".encode())


def serve_echo(deadline_s: float) -> Iterator[PageServer]:
    limits = msgspec.structs.replace(
        PAGE_LIMITS,
        max_connections=2,
        header_deadline_s=deadline_s,
        receive_deadline_s=deadline_s,
        request_deadline_s=LONG_DEADLINE_S,
        max_header_bytes=1024,
    )
    page_server = PageServer(Echo(), limits)
    page_server.start()
    yield page_server
    page_server.stop()


@pytest.fixture
def server() -> Iterator[PageServer]:
    """A server whose deadlines never cut a request short here, however slow the machine."""
    yield from serve_echo(LONG_DEADLINE_S)


@pytest.fixture
def hasty() -> Iterator[PageServer]:
    """A server whose deadlines run out while a request is still incomplete."""
    yield from serve_echo(0.3)


async def exchange(server: PageServer, data: bytes) -> bytes:
    """Send raw bytes, then read until the server closes the connection."""
    host, port = server.host.split(":")
    received = b""
    async with await anyio.connect_tcp(host, int(port)) as stream:
        await stream.send(data)
        with anyio.fail_after(HANG_GUARD_S):
            try:
                while True:
                    received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                pass
    return received


def head(server: PageServer, extra: str = "") -> bytes:
    return f"POST /x HTTP/1.1\r\nHost: {server.host}\r\n{extra}\r\n".encode()


async def test_a_request_is_answered_once_and_the_connection_closed(server: PageServer) -> None:
    answer = await exchange(server, head(server, "Content-Length: 5\r\n") + b"hello")
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"\r\nconnection: close\r\n" in answer.lower() and answer.endswith(b"POST 5 /x")


@pytest.mark.parametrize(
    ("extra", "body"),
    [
        pytest.param("Content-Length: 65\r\n", b"x" * 65, id="declared"),
        pytest.param(
            "Transfer-Encoding: chunked\r\n", b"41\r\n" + b"x" * 65 + b"\r\n0\r\n\r\n", id="chunked"
        ),
    ],
)
async def test_a_body_over_the_cap_is_refused(server: PageServer, extra: str, body: bytes) -> None:
    answer = await exchange(server, head(server, extra) + body)
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert b"X-Frame-Options: DENY" in answer and b"Content-Security-Policy: " in answer


async def test_a_slow_head_or_body_runs_out_of_time(hasty: PageServer) -> None:
    slow_head = await exchange(hasty, b"GET / HTTP/1.1\r\n")
    slow_body = await exchange(hasty, head(hasty, "Content-Length: 10\r\n") + b"abc")
    assert slow_head.startswith(b"HTTP/1.1 408 ") and slow_body.startswith(b"HTTP/1.1 408 ")


@pytest.mark.parametrize(
    "data",
    [
        b"NOT HTTP\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\nOrigin: a\r\nOrigin: b\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + b"y" * 9000 + b"\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc",
        b"GET / HTTP/1.1\nHost: a\n\n",
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
    ],
    ids=["garbage", "repeated-header", "huge-head", "cut-body", "bare-lf", "smuggling"],
)
async def test_malformed_requests_get_400(server: PageServer, data: bytes) -> None:
    if data.endswith(b"abc"):  # the client closes its side early: the body ends short
        host, port = server.host.split(":")
        async with await anyio.connect_tcp(host, int(port)) as stream:
            await stream.send(data)
            await stream.send_eof()
            answer = await stream.receive()
    else:
        answer = await exchange(server, data)
    status = b"431" if b"X-Big" in data else b"400"  # the stack's status for an oversized head
    assert answer.startswith(b"HTTP/1.1 " + status + b" ")
    assert b"X-Frame-Options: DENY" in answer


async def test_a_handler_failure_is_a_500_without_details(
    server: PageServer, caplog: pytest.LogCaptureFixture
) -> None:
    answer = await exchange(server, f"GET /boom HTTP/1.1\r\nHost: {server.host}\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 500 ") and b"handler bug" not in answer
    assert "a page failed on /boom" in caplog.text


async def test_the_page_sees_the_target_with_its_query_and_head_gets_no_body(
    server: PageServer,
) -> None:
    query = await exchange(server, f"GET /a?x=1 HTTP/1.1\r\nHost: {server.host}\r\n\r\n".encode())
    bare = await exchange(server, f"HEAD /a HTTP/1.1\r\nHost: {server.host}\r\n\r\n".encode())
    assert query.endswith(b"GET 0 /a?x=1")
    assert bare.startswith(b"HTTP/1.1 200 ") and bare.endswith(b"\r\n\r\n")
    assert b"content-length: 9\r\n" in bare.lower()


async def test_an_empty_connection_gets_no_answer(server: PageServer) -> None:
    host, port = server.host.split(":")
    async with await anyio.connect_tcp(host, int(port)) as stream:
        await stream.send_eof()
        with anyio.fail_after(HANG_GUARD_S), pytest.raises(anyio.EndOfStream):
            await stream.receive()


async def test_connections_beyond_the_cap_are_closed_at_once() -> None:
    # The head deadline is past the guard: a third connection answered with nothing can only
    # have been closed by the cap (admitted, its request would get an answer).
    limits = msgspec.structs.replace(
        PAGE_LIMITS, max_connections=2, header_deadline_s=LONG_DEADLINE_S
    )
    page_server = PageServer(Echo(), limits)
    page_server.start()
    host, port = page_server.host.split(":")
    request = f"GET / HTTP/1.1\r\nHost: {page_server.host}\r\n\r\n".encode()
    try:
        first = await anyio.connect_tcp(host, int(port))
        second = await anyio.connect_tcp(host, int(port))
        async with first, second:
            assert await exchange(page_server, request) == b""
        with anyio.fail_after(HANG_GUARD_S):  # the two are released once the server sees them go
            while not (again := await exchange(page_server, request)):  # noqa: ASYNC110
                await anyio.sleep(0.01)
        assert again.startswith(b"HTTP/1.1 200 ")
    finally:
        page_server.stop()


def test_the_server_listens_on_loopback_and_an_ephemeral_port_only() -> None:
    page_server = PageServer(Echo())
    with pytest.raises(PageServerError, match="could not be started"):
        _ = page_server.host
    host = page_server.start()
    try:
        address, port = host.split(":")
        assert address == "127.0.0.1" and 1024 <= int(port) <= 65535
        assert page_server.start() == host  # started once
    finally:
        page_server.stop()
    with pytest.raises(PageServerError):
        _ = page_server.host


def test_the_process_shares_one_page_listener() -> None:
    first, second = approval_pages(), approval_pages()
    assert first is second and isinstance(first.server, PageServer)
    assert first.link("E" * 43) == f"http://{first.server.host}/a/{'E' * 43}"


def test_shared_pages_make_one_site_and_one_listener_and_start_it_each_time() -> None:
    made: list[Listener] = []

    def make() -> Pages:
        made.append(Listener())
        return Pages(ApprovalSite(), made[-1])

    shared = SharedPages(make)
    first, second = shared(), shared()
    assert first is second and isinstance(first, Pages) and len(made) == 1
    assert made[0].starts == 2 and first.link("F" * 43) == f"http://127.0.0.1:9/a/{'F' * 43}"


class Listener:
    """A page listener that only counts its starts."""

    host = "127.0.0.1:9"

    def __init__(self) -> None:
        self.starts = 0

    def start(self) -> str:
        self.starts += 1
        return self.host


def imported(module: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
    return names


def test_safety_never_imports_the_http_stack() -> None:
    for module in SAFETY.glob("*.py"):
        assert not {n for n in imported(module) if n.startswith("sevdesk_mcp.http")}, module.name


LINK = "http://127.0.0.1:4567/a/" + "F" * 43


@pytest.mark.parametrize(
    ("platform", "command"),
    [
        ("linux", ["xdg-open", LINK]),
        ("freebsd14", ["xdg-open", LINK]),
        ("darwin", ["open", LINK]),
        ("win32", ["cmd", "/c", "start", "", LINK]),
    ],
)
def test_the_opener_is_the_platform_s_own(platform: str, command: list[str]) -> None:
    assert opener.opener_command(LINK, platform) == command


@pytest.mark.parametrize(
    "url",
    [
        "http://evil.example/a/" + "F" * 43,
        LINK + "&calc",
        "file:///etc/passwd",
        "http://127.0.0.1:4567/a/" + "F" * 42 + ";",
    ],
)
def test_only_page_links_are_ever_opened(url: str) -> None:
    with pytest.raises(ValueError, match="only links of the local approval page"):
        opener.opener_command(url)


def test_open_url_reports_whether_the_opener_started(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(opener, "opener_command", lambda url: [sys.executable, "-c", "pass"])
    assert opener.open_url(LINK) is True
    monkeypatch.setattr(opener, "opener_command", lambda url: [str(tmp_path / "missing"), url])
    assert opener.open_url(LINK) is False


async def test_the_store_consumes_an_approval_once() -> None:
    store = MemoryApprovalStore(Clock())
    created = await store.settle(BINDING, PREVIEW)
    assert created.kind == "new"
    assert (await store.settle(BINDING, PREVIEW)).kind == "pending"
    assert store.decide_now(created.approval.id, approved=True) is not None
    assert store.decide_now(created.approval.id, approved=False) is None  # decided once
    used = await store.settle(BINDING, PREVIEW)
    assert used.kind == "approved" and used.approval.id == created.approval.id
    assert (await store.settle(BINDING, PREVIEW)).kind == "new"


@pytest.mark.parametrize(
    "other",
    [
        Binding("sevdesk_other_tool", "args", "local"),
        Binding("sevdesk_test_finalize_invoice", "other-args", "local"),
        Binding("sevdesk_test_finalize_invoice", "args", "oauth:someone-else"),
    ],
)
async def test_an_approval_never_matches_another_tool_arguments_or_principal(
    other: Binding,
) -> None:
    store = MemoryApprovalStore(Clock())
    approval = (await store.settle(BINDING, PREVIEW)).approval
    store.decide_now(approval.id, approved=True)
    assert (await store.settle(other, PREVIEW)).kind == "new"
    assert (await store.settle(BINDING, PREVIEW)).kind == "approved"


async def test_ids_are_256_bit_and_references_short_and_distinct() -> None:
    store = MemoryApprovalStore(Clock(), max_pending=50)
    approvals = [
        (await store.settle(Binding("t", str(n), "p"), PREVIEW)).approval for n in range(50)
    ]
    assert all(len(a.id) == 43 for a in approvals)  # 32 bytes, base64url
    assert len({a.reference for a in approvals}) == 50
    assert len({a.csrf for a in approvals} | {a.cookie for a in approvals}) == 100


def test_a_page_server_that_cannot_listen_fails_the_call_not_the_process(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def refuse(**kwargs: object) -> None:
        raise OSError("no loopback here")

    monkeypatch.setattr(anyio, "create_tcp_listener", refuse)
    page_server = PageServer(Echo())
    with pytest.raises(PageServerError, match="could not be started"):
        page_server.start()
    page_server.stop()
    assert "The local approval page stopped" in caplog.text


def test_a_long_preview_is_capped_on_the_page_with_a_marker() -> None:
    long = Preview(
        action=say("Act", "Tun"),
        facts=[fact("Text", "Text", Quoted("z" * 13_000))],
        warnings=[say("careful", "Vorsicht")],
    )
    html = preview_html(long)
    shown = 12_000 - len("careful") - len("Act") - len("Text")
    assert html.index("WARNING:</strong> careful") < html.index("Act")
    assert f'<dd><q class="data">{"z" * shown}</q></dd>' in html
    assert f"[… {13_000 - shown} more characters not shown; open the dry run" in html


def test_hidden_characters_never_reach_the_page() -> None:
    preview = Preview(
        action=say("Pay {0}", "{0} bezahlen", Quoted("\u202eevil\u200b")),
        facts=[fact("A\tB", "A\tB", Quoted("1\n2"))],
    )
    html = preview_html(preview)
    assert "\u202e" not in html and "\u200b" not in html and "\t" not in html
    assert '>Pay <q class="data">evil</q></h2>' in html
    assert '<dd><q class="data">1\n2</q></dd>' in html


async def test_a_decision_lost_to_a_concurrent_one_answers_404(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryApprovalStore(Clock())
    site = ApprovalSite()
    site.attach(store)
    approval = (await store.settle(BINDING, PREVIEW)).approval
    host = "127.0.0.1:1"
    headers = {
        "host": host,
        "origin": f"http://{host}",
        "cookie": f"{cookie_name(approval)}={approval.cookie}",
        "content-type": "application/x-www-form-urlencoded",
    }
    body = f"csrf={approval.csrf}&decision=approve".encode()
    request = Request("POST", f"/a/{approval.id}", headers, body, host)
    monkeypatch.setattr(store, "decide_now", lambda *args, **kwargs: None)
    assert site.handle(request).status == 404
    monkeypatch.undo()
    assert site.handle(request).status == 200
