"""The sevDesk HTTP client: one pooled httpx client per account.

Rules (sevdesk-api section 1 and threat cases S01-S09):

- ``Authorization`` carries the raw token (no ``Bearer``); redirects are never followed; proxy
  variables of the environment are ignored unless a proxy is configured explicitly;
- every path is validated and every request passes the write gate before it is sent;
- requests are paced per account; each call has per-phase timeouts and a total budget of 20 s
  (S02), which ends a slow drip that httpx's per-read timeout would let run on;
- only GETs are retried, with capped backoff and jitter, all inside that budget: at most once
  after a network failure (connect, DNS, TLS, reset; S01), at most twice in all after 502-504
  (S03) or a 429 whose ``Retry-After`` is at most 10 s (S04). POST, PUT and DELETE are **never**
  retried, and a write whose answer did not arrive raises
  :class:`~sevdesk_mcp.errors.OutcomeUnknownError`;
- reference data (``cache.py``) is answered from a short-lived cache shared by every view of the
  client; business records are always read fresh;
- a whole list is read page by page: the first page asks for ``countAll``, and once it gives
  the total the other pages are read together (in offset order, inside the pacing budget);
  without a total, one page after another; a reader that asked for it (``parsed.py``) gets each
  page converted into its schema as it arrived;
- answers are read with a cap on decoded bytes and unwrapped from the envelope;
- one error boundary (``boundary.py``, httpcore's ``map_exceptions``) wraps every call:
  nothing but an :class:`~sevdesk_mcp.errors.UpstreamError` leaves the client, besides the
  gate's :class:`~sevdesk_mcp.errors.WriteRefusedError` and cancellation. A body that cannot be
  decoded (a broken gzip stream) counts as a network failure of a read, and as an unknown
  outcome of a write;
- the token is registered with the redactor and never appears in a repr, error or log line;
- every client of the process verifies sevDesk's certificate with one TLS context
  (:func:`tls_context`: certifi's authorities, as httpx's default without the environment):
  loading them costs about 1 MiB and 16 ms a context, and OAuth mode keeps a client
  per signed-in account.
"""

from __future__ import annotations

import copy
import email.utils
import functools
import math
import secrets
import ssl
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Final, TypeVar

import anyio
import msgspec

from sevdesk_mcp import __version__
from sevdesk_mcp.errors import (
    MalformedResponseError,
    RateLimitedError,
    RejectedError,
    UnavailableError,
    UpstreamValidationError,
)
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.safety.redact import REDACTOR, Secret, Undisclosed
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk import parsed
from sevdesk_mcp.sevdesk.boundary import Call, map_exceptions
from sevdesk_mcp.sevdesk.cache import VERSION_PATH, ReferenceCache, is_reference, key_of
from sevdesk_mcp.sevdesk.envelope import decoded, many, objects_of
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.observe import OBSERVER
from sevdesk_mcp.sevdesk.pacing import Pacer
from sevdesk_mcp.sevdesk.page import Page
from sevdesk_mcp.sevdesk.paging import PAGE_LIMIT, page_plan, total_of
from sevdesk_mcp.sevdesk.paths import QueryValue, check_path, encode_query, minimum_tier
from sevdesk_mcp.sevdesk.together import in_order
from sevdesk_mcp.sevdesk.witness import Witness

if TYPE_CHECKING:
    import httpx

MiB: Final = 1024 * 1024
USER_AGENT: Final = f"mcp-server-sevdesk/{__version__}"
_RETRY_STATUSES: Final = frozenset({502, 503, 504})
_jitter = secrets.SystemRandom()
R = TypeVar("R")


class Limits(msgspec.Struct, frozen=True):
    """Timeouts, budgets and caps of one client (the figures of threat cases S01-S07).

    ``budget_s`` bounds a whole call, retries and waits included; ``max_get_retries`` counts
    every retry of a read, ``max_network_retries`` those after a network failure.
    """

    connect_s: float = 5.0
    read_s: float = 20.0
    budget_s: float = 20.0
    max_response_bytes: int = 10 * MiB
    max_get_retries: int = 2
    max_network_retries: int = 1
    backoff_base_s: float = 0.25
    backoff_cap_s: float = 2.0
    max_retry_after_s: float = 10.0


DEFAULT_LIMITS: Final = Limits()


class Upload(Undisclosed, msgspec.Struct, frozen=True):
    """A file to upload: its name, bytes and media type."""

    name: str
    data: bytes
    media_type: str


class SevdeskClient:
    """Talks to one sevDesk account.

    :param base_url: the API root, e.g. ``https://my.sevdesk.de/api/v1`` (validated by config).
    :param transport: an httpx transport, e.g. the fake sevDesk's; the network by default.
    :param reference: the cache of reference data (a fresh one by default; tests inject one
        with their own clock).
    """

    def __init__(  # noqa: PLR0913 - each is a separate, explicit setting
        self,
        *,
        base_url: str,
        token: Secret,
        gate: WriteGate,
        pacer: Pacer | None = None,
        limits: Limits = DEFAULT_LIMITS,
        transport: httpx.AsyncBaseTransport | None = None,
        proxy: str | None = None,
        reference: ReferenceCache | None = None,
    ) -> None:
        REDACTOR.add(token.reveal())
        self.gate = gate
        self._stamp: Tier | None = None
        self._witness: Witness | None = None
        self._pacer = pacer or Pacer()
        self._limits = limits
        self._reference = reference or ReferenceCache()
        self._base_url = base_url.rstrip("/")
        self._pool = _Pool(
            lambda: _http_client(self._base_url, token, limits, transport=transport, proxy=proxy)
        )

    def __repr__(self) -> str:
        return f"SevdeskClient({self._base_url})"

    def view(
        self, *, gate: WriteGate, stamp: Tier | None, witness: Witness | None = None
    ) -> SevdeskClient:
        """:returns: a client sharing this one's connections, pacing and reference cache, with
        another gate.

        With ``stamp`` every request carries that tier, whatever the caller passes: the write
        flow gives ``execute`` such a view, so tools never set their tier themselves; ``prepare``
        gets a read-only view whose gate refuses every write, with a ``witness`` that records
        every answer read.
        """
        other = copy.copy(self)
        other.gate, other._stamp, other._witness = gate, stamp, witness
        return other

    @property
    def witness(self) -> Witness | None:
        """:returns: what records this view's reads, if anything does."""
        return self._witness

    @property
    def pacer(self) -> Pacer:
        """:returns: the pacer this client and all its views share."""
        return self._pacer

    async def aclose(self) -> None:
        """Close the connection pool.

        :raises UnavailableError: if closing a connection failed.
        """
        with map_exceptions(Call("CLOSE", "", write=False), self._limits.budget_s):
            await self._pool.aclose()

    async def get(self, path: str, query: Mapping[str, QueryValue] | None = None) -> JsonValue:
        """Read. ``getPdf`` always goes out with ``preventSendBy=true`` (Q21); reference data
        may come from the account's cache (``cache.py``).

        :raises UpstreamError: the classified failure.
        :raises WriteRefusedError: if the GET would change data (use :meth:`send` with a tier).
        """
        answer, _ = await self._get(path, encode_query(query or {}))
        return answer

    async def _get(self, path: str, params: dict[str, str]) -> tuple[JsonValue, int | None]:
        """:returns: the answer and the list's ``total`` (when ``countAll`` was asked and sent).

        :raises UpstreamError: the classified failure.
        :raises WriteRefusedError: if the GET would change data.
        """
        self._check_get(path, params)
        if is_reference(path):
            answer, total = await self._reference.get(
                key_of(path, params), lambda: self._run("GET", path, params, None, is_write=False)
            )
        else:
            answer, total = await self._run("GET", path, params, None, is_write=False)
        if self._witness is not None:
            self._witness.saw(path, params, answer)
        return answer, total

    def _check_get(self, path: str, params: dict[str, str]) -> None:
        """:raises WriteRefusedError: if the GET would change data."""
        if check_path(path).endswith("/getPdf"):
            params["preventSendBy"] = "true"
        self.gate.check("GET", path, params, None)

    async def _rows(
        self, path: str, params: dict[str, str], kind: type[msgspec.Struct] | None
    ) -> tuple[parsed.Rows, int | None]:
        """:returns: one page of a list, read straight into ``kind`` when a reader asked for it
        and nothing needs the dicts at once (a witness records them, the cache keeps them),
        and the list's ``total`` (when ``countAll`` was asked and sent).

        :raises UpstreamError: the classified failure.
        :raises WriteRefusedError: if the GET would change data.
        """
        if kind is None or self._witness is not None or is_reference(path):
            answer, total = await self._get(path, params)
            return parsed.Rows.of(many(answer), kind), total
        self._check_get(path, params)
        objects, total = await self._bounded(
            Call("GET", path, write=False), lambda call: self._read(call, params)
        )
        return parsed.Rows.read(objects, kind), total

    async def send(
        self,
        method: str,
        path: str,
        *,
        tier: Tier | None = None,
        query: Mapping[str, QueryValue] | None = None,
        json: JsonObject | None = None,
    ) -> JsonValue:
        """Make a request that may change data; it is sent at most once.

        :raises WriteRefusedError: if the write gate refuses it (nothing was sent).
        :raises OutcomeUnknownError: if it was sent and no usable answer arrived (none, a 5xx,
            or a body that cannot be decoded or read); it names what to check.
        :raises UpstreamError: the classified failure.
        """
        params = encode_query(query or {})
        tier = self._stamp if self._stamp is not None else tier
        self.gate.check(method, check_path(path), params, tier, json)
        changes_data = minimum_tier(method, path, params, json) is not None  # side-effect GETs
        answer, _ = await self._run(method, path, params, json, is_write=changes_data)
        return answer

    async def upload(self, path: str, file: Upload, *, tier: Tier | None = None) -> JsonValue:
        """Send a file as ``multipart/form-data`` (field ``file``) with ``POST``; at most once.

        :raises WriteRefusedError: if the write gate refuses it (nothing was sent).
        :raises OutcomeUnknownError: if it was sent and no usable answer arrived.
        :raises UpstreamError: the classified failure.
        """
        tier = self._stamp if self._stamp is not None else tier
        self.gate.check("POST", check_path(path), {}, tier)
        answer, _ = await self._run("POST", path, {}, file, is_write=True)
        return answer

    async def get_all(
        self, path: str, query: Mapping[str, QueryValue] | None = None, *, max_items: int
    ) -> Page:
        """Read a whole list, always sending ``limit`` (the silent 100-row default would
        truncate otherwise), up to ``max_items`` (``truncated`` says whether more existed).

        The first page asks for ``countAll``; when sevDesk sends the total, the other pages are
        read together, in offset order; without it, one after another until a short or empty
        page. Pages that end full after the total (the list grew) are followed one by one.

        :raises UpstreamError: the classified failure.
        """
        base = encode_query(query or {})
        kind = parsed.wanted(path)
        limit = min(PAGE_LIMIT, max_items + 1)
        first = {**base, "limit": str(limit), "offset": "0", "countAll": "true"}
        rows, total = await self._rows(path, first, kind)
        pages, count = [rows], rows.count
        full = count == limit
        if full and total is not None and count <= max_items:
            plan = page_plan(count, total, max_items)
            more = await self._pages(path, base, plan, total, kind) if plan else []
            pages += more
            count += sum(p.count for p in more)
            full = bool(more) and more[-1].count == plan[-1][1]  # a full last page: it grew
        while full and count <= max_items:
            await _tell(path, count, total)
            limit = min(PAGE_LIMIT, max_items + 1 - count)
            params = {**base, "limit": str(limit), "offset": str(count)}
            rows, _ = await self._rows(path, params, kind)
            pages.append(rows)
            count += rows.count
            full = rows.count == limit
        return Page.later(
            functools.partial(parsed.items_of, pages, max_items),
            truncated=count > max_items,
            parsed=parsed.joined(kind, pages, max_items),
        )

    async def _pages(
        self,
        path: str,
        base: dict[str, str],
        plan: list[tuple[int, int]],
        total: int,
        kind: type[msgspec.Struct] | None,
    ) -> list[parsed.Rows]:
        """:returns: the pages of ``plan`` (offset, limit), read together, in offset order, each
        converted into ``kind`` as it arrived when the reader asked for that (``parsed.py``).

        :raises UpstreamError: the classified failure of any page (the others are cancelled).
        """
        read = plan[0][0] if plan else 0
        await _tell(path, read, total)

        async def page(offset: int, limit: int) -> parsed.Rows:
            nonlocal read
            params = {**base, "limit": str(limit), "offset": str(offset)}
            rows, _ = await self._rows(path, params, kind)
            read += rows.count
            if read < total:
                await _tell(path, read, total)
            return rows

        return await in_order([functools.partial(page, o, n) for o, n in plan])

    async def remembered(self, name: str, fetch: Callable[[SevdeskClient], Awaitable[R]]) -> R:
        """:returns: a value derived from this account's data (e.g. the receipt history the
        booking suggestions read), kept in the account's reference cache like reference data
        (``cache.py``: for its time to live, shared by every view, one read at a time).

        ``fetch`` reads through a view without this one's witness: a derived value informs a
        suggestion, it is no record an approval binds (and a cached answer would be missing
        from the approved retry's digests).

        :raises Exception: whatever ``fetch`` raises; nothing is kept then.
        """
        unwitnessed = copy.copy(self)
        unwitnessed._witness = None
        return await self._reference.get((f"derived:{name}", ()), lambda: fetch(unwitnessed))

    async def system_version(self) -> str:
        """:returns: the account's bookkeeping system version, ``"1.0"`` or ``"2.0"`` (cached
        with the reference data).

        :raises UpstreamError: the classified failure.
        """
        objects = await self.get(VERSION_PATH)
        version = objects.get("version") if isinstance(objects, dict) else None
        if version not in ("1.0", "2.0"):
            raise MalformedResponseError(
                "sevDesk sent no usable bookkeeping system version (`version` is not 1.0 or "
                "2.0); try again, and report it if it persists."
            )
        if self._witness is not None:  # the entry the approval binds: the version alone
            self._witness.saw(VERSION_PATH, {}, {"version": str(version)})
        return str(version)

    async def _run(
        self,
        method: str,
        path: str,
        params: dict[str, str],
        json: JsonObject | Upload | None,
        *,
        is_write: bool,
    ) -> tuple[JsonValue, int | None]:
        call = Call(method, path, write=is_write)
        if is_write:
            return await self._bounded(call, lambda c: self._write(c, params, json)), None
        objects, total = await self._bounded(call, lambda c: self._read(c, params))
        return decoded(objects), total

    async def _bounded(self, call: Call, work: Callable[[Call], Awaitable[R]]) -> R:
        """:returns: what ``work`` returns for ``call``, inside the error boundary and the
        call's budget; the call's observer hears of the answer.

        :raises UpstreamError: the classified failure.
        """
        budget_s = self._limits.budget_s
        with map_exceptions(call, budget_s), anyio.fail_after(budget_s):
            result = await work(call)
        observer = OBSERVER.get()
        if observer is not None:
            await observer.answered(call.method, call.path)
        return result

    async def _read(self, call: Call, params: dict[str, str]) -> tuple[msgspec.Raw, int | None]:
        import httpx  # noqa: PLC0415 - imported with the pool (see _Pool)

        transient = (httpx.TransportError, httpx.DecodingError)  # a read may try once more
        retried = (*transient, UnavailableError, RateLimitedError)
        while True:
            call.attempts += 1
            try:
                status, body, headers = await self._exchange(call, params, None)
                objects = _finish(status, body, headers)
                return objects, total_of(body) if "countAll" in params else None
            except retried as exc:
                if isinstance(exc, transient):
                    call.network_failures += 1
                wait = self._retry_wait(call, exc)
                if wait is None:
                    raise
            await anyio.sleep(wait)

    def _retry_wait(self, call: Call, error: Exception) -> float | None:
        if (
            call.attempts > self._limits.max_get_retries
            or call.network_failures > self._limits.max_network_retries
        ):
            return None
        if isinstance(error, RateLimitedError):
            wait = error.retry_after_s
            if wait is None or wait > self._limits.max_retry_after_s:
                return None
            remaining = anyio.current_effective_deadline() - anyio.current_time()
            return wait if wait < remaining else None
        ceiling = min(self._limits.backoff_cap_s, self._limits.backoff_base_s * 2**call.attempts)
        return _jitter.uniform(0, ceiling)

    async def _write(
        self, call: Call, params: dict[str, str], json: JsonObject | Upload | None
    ) -> JsonValue:
        try:
            return decoded(_finish(*await self._exchange(call, params, json)))
        except UpstreamValidationError as exc:
            if exc.status < 500:
                raise
            raise UpstreamValidationError(  # validation sent as 500: sometimes applied (Q33)
                f"{exc} sevDesk has applied writes it answered with HTTP 500 before: check the "
                "record in sevDesk before trying again.",
                status=exc.status,
                code=exc.code,
            ) from None

    async def _exchange(
        self, call: Call, params: dict[str, str], json: JsonObject | Upload | None
    ) -> tuple[int, bytes, httpx.Headers]:
        http = self._pool.get()
        if isinstance(json, Upload):  # multipart with the one field ``file`` (§1)
            files = {"file": (json.name, json.data, json.media_type)}
            request = http.build_request(call.method, call.path, params=params, files=files)
        else:
            request = http.build_request(call.method, call.path, params=params, json=json)
        async with self._pacer.slot():
            call.sent, call.status = True, None
            response = await http.send(request, stream=True)
            call.status = response.status_code
            try:
                body = await self._read_capped(response)
            finally:
                await response.aclose()
        return response.status_code, body, response.headers

    async def _read_capped(self, response: httpx.Response) -> bytes:
        cap = self._limits.max_response_bytes
        if _announces_more(response.headers.get("content-length", ""), cap):
            raise MalformedResponseError(f"sevDesk's answer is larger than {cap // MiB} MiB.")
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > cap:
                raise MalformedResponseError(f"sevDesk's answer is larger than {cap // MiB} MiB.")
            chunks.append(chunk)
        return b"".join(chunks)


class _Pool:
    """The account's one pooled httpx client, shared by every view of the client, built on the
    first request: httpx (with httpcore and its TLS set-up) is imported then, not at start-up,
    so a server that only answers ``initialize`` and ``tools/list`` never loads it."""

    def __init__(self, build: Callable[[], httpx.AsyncClient]) -> None:
        self._build = build
        self._client: httpx.AsyncClient | None = None

    def get(self) -> httpx.AsyncClient:
        """:returns: the pooled client, built now if this is the first request."""
        if self._client is None:
            self._client = self._build()
        return self._client

    async def aclose(self) -> None:
        """Close the pool if it was ever built."""
        if self._client is not None:
            await self._client.aclose()


def _http_client(
    base_url: str,
    token: Secret,
    limits: Limits,
    *,
    transport: httpx.AsyncBaseTransport | None,
    proxy: str | None,
) -> httpx.AsyncClient:
    import httpx  # noqa: PLC0415 - see _Pool

    return httpx.AsyncClient(
        base_url=base_url,
        headers={
            "Authorization": token.reveal(),
            "User-Agent": USER_AGENT,
            "Accept": "application/json",
        },
        follow_redirects=False,
        trust_env=False,
        proxy=proxy,
        transport=transport,
        verify=tls_context() if transport is None else True,
        timeout=httpx.Timeout(limits.read_s, connect=limits.connect_s),
    )


@functools.cache
def tls_context() -> ssl.SSLContext:
    """:returns: the process's one TLS context for sevDesk: certificates verified against
    certifi's authorities, as httpx verifies by default (``SSL_CERT_FILE`` and ``SSL_CERT_DIR``
    are not read: the client ignores the environment). A context is safe to share between
    connections and clients."""
    import httpx  # noqa: PLC0415 - see _Pool

    return httpx.create_ssl_context(trust_env=False)


async def _tell(path: str, read: int, total: int | None) -> None:
    """Tell the call's observer that ``read`` items of the list at ``path`` arrived."""
    observer = OBSERVER.get()
    if observer is not None:
        await observer.listed(path, read, total)


def _finish(status: int, body: bytes, headers: httpx.Headers) -> msgspec.Raw:
    if status == 429:
        wait = retry_after_s(headers.get("retry-after"))
        hint = f"try again in {wait:.0f} s" if wait is not None else "try again shortly"
        raise RateLimitedError(f"sevDesk is rate limiting requests; {hint}.", wait)
    if 300 <= status < 400:
        raise RejectedError(
            f"sevDesk answered with a redirect (HTTP {status}); redirects are never followed. "
            "Check SEVDESK_API_URL.",
            status=status,
        )
    if status in _RETRY_STATUSES:
        raise UnavailableError(f"sevDesk is unavailable right now (HTTP {status}); try later.")
    return objects_of(status, body)


def _announces_more(declared: str, cap: int) -> bool:
    """:returns: whether a ``Content-Length`` announces more than ``cap`` bytes; ``²`` is a
    digit to ``isdigit`` but not to ``int``, and ``int`` refuses more than 4,300 digits."""
    if not (declared.isascii() and declared.isdigit()):
        return False
    digits = declared.lstrip("0")
    return len(digits) > len(str(cap)) or int(digits or "0") > cap


def retry_after_s(value: str | None) -> float | None:
    """:returns: the seconds a ``Retry-After`` header asks for (seconds or an HTTP date);
    ``None`` for anything else, including ``²`` (a digit to ``isdigit``, not to ``float``) and
    more seconds than a float holds."""
    if not value:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        seconds = float(text)
        return seconds if math.isfinite(seconds) else None
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())
