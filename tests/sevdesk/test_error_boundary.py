"""The one error boundary at sevDesk (issue 13, step 1): only our ``UpstreamError`` family leaves.

Answers are streamed (:func:`streamed`), as on the wire: the client, not the test's handler,
decodes the body, so a broken gzip stream fails inside the exchange, after the status arrived
(a ``Response(content=...)`` is decoded by the handler already). A streamed answer can be read
once, so scripts hold factories of answers.

When a body fails half-way, httpx's own async generators (``Response.aiter_raw``,
``BoundAsyncStream.__aiter__``) are dropped unexhausted, and trio warns about each
(encode/httpx#3686). Python ignores ``ResourceWarning`` by default; these tests ignore exactly
that warning about httpx's generators.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sevdesk_mcp.errors import (
    MalformedResponseError,
    OutcomeUnknownError,
    UnavailableError,
    UpstreamError,
)
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import Limits, SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.witness import Witness
from tests.sevdesk.mock import TOKEN, Script, client, ok
from tests.wire import HANG_GUARD_S

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore:Async generator 'httpx\\.:ResourceWarning"),
]

BROKEN_GZIP = b"\x1f\x8b\x08garbage"  # a gzip magic number, then no valid header
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


class Chunks(httpx.AsyncByteStream):
    """A body that arrives in chunks of ``size`` bytes and is decoded by whoever reads it (an
    iterator, not an async generator, so that it needs no closing)."""

    def __init__(self, body: bytes, size: int = 7) -> None:
        self._parts: Iterator[bytes] = (body[i : i + size] for i in range(0, len(body), size))

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        try:
            return next(self._parts)
        except StopIteration:
            raise StopAsyncIteration from None


def streamed(
    status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None, size: int = 7
) -> httpx.Response:
    return httpx.Response(status, headers=headers or [], stream=Chunks(body, size))


def gzipped(status: int, body: bytes) -> Callable[[httpx.Request], httpx.Response]:
    return lambda _: streamed(status, body, [(b"Content-Encoding", b"gzip")])


ENVELOPE = json.dumps({"objects": [{"id": "1"}]}).encode()


# --- regressions: a 200 with a broken gzip body -------------------------------------------------


async def test_a_broken_gzip_answer_to_a_read_is_retried_once_then_malformed() -> None:
    script = Script(gzipped(200, BROKEN_GZIP))
    with anyio.fail_after(HANG_GUARD_S), pytest.raises(MalformedResponseError, match="garbled"):
        await client(script).get("/Contact")
    assert len(script.requests) == 2  # S01: a decoding failure is a network failure: one retry


async def test_a_read_recovers_from_one_broken_gzip_answer() -> None:
    script = Script(gzipped(200, BROKEN_GZIP), ok([{"id": "1"}]))
    assert await client(script).get("/Contact") == [{"id": "1"}]
    assert len(script.requests) == 2


async def test_a_corrupt_gzip_answer_counts_with_network_failures() -> None:
    corrupt = bytearray(gzip.compress(ENVELOPE))
    corrupt[-6] ^= 0xFF  # the CRC no longer matches
    script = Script(gzipped(200, bytes(corrupt)), httpx.ConnectError("refused"), ok([]))
    with pytest.raises(UnavailableError, match="reached"):
        await client(script).get("/Contact")
    assert len(script.requests) == 2  # the second network failure ends it


@pytest.mark.threat("S08")
async def test_a_broken_gzip_answer_to_a_write_is_an_unknown_outcome() -> None:
    script = Script(gzipped(200, BROKEN_GZIP), ok({"id": "1"}))
    with pytest.raises(OutcomeUnknownError) as info:
        await client(script).send("POST", "/Contact", tier=Tier.WRITE, json={"name": "x"})
    assert "POST /Contact was sent to sevDesk, but sevDesk answered HTTP 200" in str(info.value)
    assert "Check the record in sevDesk" in str(info.value)
    assert len(script.requests) == 1


@pytest.mark.threat("S07")
async def test_a_write_answered_beyond_the_cap_is_an_unknown_outcome() -> None:
    script = Script(lambda _: streamed(201, b'{"objects":"' + b"x" * 2000 + b'"}'))
    limits = Limits(max_response_bytes=1000)
    with pytest.raises(OutcomeUnknownError, match="HTTP 201 without a usable result"):
        await client(script, limits=limits).send("POST", "/Contact", tier=Tier.WRITE, json={})
    assert len(script.requests) == 1


@pytest.mark.threat("S07")
@pytest.mark.parametrize("declared", ["\u00b2", "9" * 5000, "0" * 30 + "12"])
async def test_an_odd_content_length_is_no_crash(declared: str) -> None:
    script = Script(lambda _: streamed(200, ENVELOPE, [(b"Content-Length", declared.encode())]))
    if declared.startswith("9"):
        with pytest.raises(MalformedResponseError, match="larger than"):
            await client(script).get("/Contact")
    else:
        assert await client(script).get("/Contact") == [{"id": "1"}]


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (httpx.InvalidURL("bad"), UnavailableError),
        (httpx.StreamConsumed(), UnavailableError),
        (httpx.ResponseNotRead(), UnavailableError),
    ],
)
async def test_httpx_errors_outside_its_http_error_tree_are_mapped_too(
    raised: Exception, expected: type[Exception]
) -> None:
    def fails(request: httpx.Request) -> httpx.Response:
        raise raised

    c = SevdeskClient(
        base_url="https://my.sevdesk.de/api/v1",
        token=Secret(TOKEN),
        gate=WriteGate(tiers=frozenset(Tier)),
        transport=httpx.MockTransport(fails),
    )
    with pytest.raises(expected) as caught:
        await c.get("/Contact")
    assert "httpx" not in str(caught.value)


async def test_closing_maps_transport_errors_too() -> None:
    class FailsOnClose(httpx.MockTransport):
        async def aclose(self) -> None:
            raise httpx.ReadError("reset while closing")

    c = SevdeskClient(
        base_url="https://my.sevdesk.de/api/v1",
        token=Secret(TOKEN),
        gate=WriteGate(tiers=frozenset(Tier)),
        transport=FailsOnClose(Script(ok([]))),
    )
    await c.get("/Contact")  # the pool is built with the first request
    with pytest.raises(UnavailableError):
        await c.aclose()


# --- the property: arbitrary answers, only our errors ------------------------------------------

FAILURES = [
    *NOT_SENT,
    httpx.ReadTimeout,
    httpx.WriteTimeout,
    httpx.ReadError,
    httpx.WriteError,
    httpx.CloseError,
    httpx.RemoteProtocolError,
    httpx.LocalProtocolError,
    httpx.ProxyError,
    httpx.UnsupportedProtocol,
    httpx.DecodingError,
    httpx.TooManyRedirects,
]
STATUSES = [200, 201, 204, 301, 400, 401, 403, 404, 422, 429, 500, 502, 503, 504]
ENCODINGS = [b"gzip", b"deflate", b"identity", b"br", b"zstd", b"gzip, deflate", b"x-odd", b""]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
envelopes = st.one_of(
    json_values.map(lambda v: {"objects": v}),
    st.builds(
        lambda message, code: {"error": {"message": message, "code": code}, "objects": None},
        st.text(max_size=20),
        st.integers(0, 200) | st.text(max_size=4),
    ),
    st.lists(st.builds(lambda i: {"id": str(i)}, st.integers(1, 99)), max_size=4).map(
        lambda rows: {"objects": rows}
    ),
).map(lambda doc: json.dumps(doc).encode())
plain = st.binary(max_size=200) | envelopes


@st.composite
def bodies(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """:returns: a body and its ``Content-Encoding``: matching, mismatched, or cut off."""
    body = draw(plain)
    if draw(st.booleans()):
        return body, draw(st.sampled_from(ENCODINGS))
    encoding = draw(st.sampled_from([b"gzip", b"deflate"]))
    packed = gzip.compress(body) if encoding == b"gzip" else zlib.compress(body)
    return packed[: draw(st.integers(0, len(packed)))], encoding


header_text = st.one_of(
    st.sampled_from(["0", "1", "60", "soon", "\u00b2", "9" * 30, "Wed, 21 Oct 2015 07:28:00 GMT"]),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=30),
).map(lambda text: text.encode())


@dataclass(frozen=True)
class Answer:
    """What the transport does for one request: fail with ``failure``, or answer afresh."""

    failure: type[httpx.HTTPError] | None = None
    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[bytes, bytes], ...] = ()
    size: int = 7

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if self.failure is not None:
            raise self.failure("injected")
        return streamed(self.status, self.body, list(self.headers), self.size)


@st.composite
def answers(draw: st.DrawFn) -> Answer:
    if draw(st.integers(0, 4)) == 0:
        return Answer(failure=draw(st.sampled_from(FAILURES)))
    body, encoding = draw(bodies())
    headers = [(b"Content-Encoding", encoding)] if encoding else []
    named = [(name, draw(header_text)) for name in (b"Content-Length", b"Retry-After")]
    headers += [pair for pair in named if draw(st.booleans())]
    status = draw(st.sampled_from(STATUSES) | st.integers(100, 599))
    return Answer(None, status, body, tuple(headers), draw(st.integers(1, 64)))


@dataclass(frozen=True)
class Operation:
    name: str
    call: Callable[[SevdeskClient], Awaitable[Any]]
    write: bool = False


def _witnessed(c: SevdeskClient) -> Awaitable[Any]:
    return c.view(gate=c.gate, stamp=None, witness=Witness()).get("/Invoice/5")


OPERATIONS = [
    Operation("get", lambda c: c.get("/Contact", {"depth": 1})),
    Operation("get_all", lambda c: c.get_all("/Contact", max_items=3)),
    Operation("system_version", lambda c: c.system_version()),
    Operation("witnessed get", _witnessed),
    Operation("post", lambda c: c.send("POST", "/Contact", tier=Tier.WRITE, json={}), True),
    Operation("put", lambda c: c.send("PUT", "/Invoice/5/bookAmount", tier=Tier.COMMIT), True),
    Operation("delete", lambda c: c.send("DELETE", "/Contact/4", tier=Tier.WRITE), True),
]
PROPERTY_LIMITS = Limits(
    budget_s=HANG_GUARD_S, backoff_base_s=0.001, backoff_cap_s=0.002, max_retry_after_s=0.01
)


@settings(max_examples=200)
@given(st.lists(answers(), min_size=1, max_size=4), st.sampled_from(OPERATIONS))
async def test_only_upstream_errors_leave_the_client(
    script_answers: list[Answer], operation: Operation
) -> None:
    script = Script(*script_answers)
    c = client(script, limits=PROPERTY_LIMITS)
    failure: UpstreamError | None = None
    try:
        await operation.call(c)
    except UpstreamError as exc:  # anything else fails the test
        failure = exc
    finally:
        await c.aclose()
    used = [script_answers[min(i, len(script_answers) - 1)] for i in range(len(script.requests))]
    if operation.write:
        assert len(script.requests) == 1  # a write is never retried
        _check_write_failure(failure, used[0])
    elif operation.name != "get_all":
        assert len(script.requests) <= 1 + PROPERTY_LIMITS.max_get_retries
        injected = sum(answer.failure is not None for answer in used)
        assert injected <= 1 + PROPERTY_LIMITS.max_network_retries
    assert failure is None or (TOKEN not in str(failure) and "injected" not in str(failure))


def _check_write_failure(failure: UpstreamError | None, first: Answer) -> None:
    """A write that may have reached sevDesk never says "unavailable" or "malformed"."""
    if first.failure in NOT_SENT:
        assert isinstance(failure, UnavailableError) and "nothing was sent" in str(failure)
    else:
        assert not isinstance(failure, UnavailableError | MalformedResponseError), failure
