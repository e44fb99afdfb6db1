"""A GET-only session against one sevDesk account (or the fake sevDesk on loopback).

The session reads ``SEVDESK_LIVE_TOKEN`` (and ``SEVDESK_LIVE_URL``, by default the real API
root) and sends every request through :class:`GetOnlyTransport`, which refuses, before any
socket is opened, every method but ``GET``, every path that is not one of the templates the
recorder and the probes read (:mod:`live.allowlist`, matched case-sensitively), a repeated
query key, and, as a second line, every ``GET`` the product's own classification
(:func:`sevdesk_mcp.sevdesk.paths.minimum_tier`) says changes data (a ``getPdf`` without
``preventSendBy=true``, DATEV export jobs, number reservations). Raw httpx is used because a
recording needs the status, headers and body exactly as sevDesk sent them, which the
product's client unwraps.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

import httpx

from live.allowlist import allowed
from sevdesk_mcp import __version__
from sevdesk_mcp.errors import WriteRefusedError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.sevdesk.paths import DEFAULT_API_URL, check_path, minimum_tier

TOKEN_VARIABLE: Final = "SEVDESK_LIVE_TOKEN"  # noqa: S105 - the name, not a token
URL_VARIABLE: Final = "SEVDESK_LIVE_URL"
USER_AGENT: Final = f"mcp-server-sevdesk-live-scripts/{__version__}"
KEPT_HEADERS: Final = ("content-type", "retry-after", "x-version")
TIMEOUT_S: Final = 20.0


class LiveSetupError(Exception):
    """The live scripts cannot start; the message says what to set."""


class ReadOnlyRefusedError(Exception):
    """A request that is not a plain read was refused before anything was sent."""


@dataclass(frozen=True, slots=True)
class LiveSettings:
    """Where the live scripts read from: the API root and the account's token."""

    url: str
    token: str

    def __repr__(self) -> str:
        return f"LiveSettings(url={self.url!r}, token=<hidden>)"


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer as sevDesk sent it: status, the headers that matter and the JSON body."""

    status: int
    headers: dict[str, str]
    body: JsonValue


def settings_from(env: Mapping[str, str]) -> LiveSettings:
    """:returns: the settings of ``env``.

    :raises LiveSetupError: without a token, or for a URL that is not https (plain http is
        accepted on loopback only, for the fake sevDesk).
    """
    token = env.get(TOKEN_VARIABLE, "").strip()
    if not token:
        raise LiveSetupError(
            f"{TOKEN_VARIABLE} is not set: export the API token of a (trial) sevDesk account "
            "to run the live scripts."
        )
    url = env.get(URL_VARIABLE, "").strip() or DEFAULT_API_URL
    split = urlsplit(url)
    if split.scheme != "https" and not (split.scheme == "http" and _loopback(split.hostname)):
        raise LiveSetupError(
            f"{URL_VARIABLE} with {split.scheme or '(no scheme)'}://{split.hostname or ''} is "
            "refused: use an https URL (plain http only on 127.0.0.1, for the fake sevDesk)."
        )
    return LiveSettings(url=url.rstrip("/"), token=token)


def _loopback(host: str | None) -> bool:
    if host == "localhost":
        return True
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def refuse_unless_plain_read(
    method: str, path: str, query: Sequence[tuple[str, str]], raw_path: str | None = None
) -> None:
    """Allow a plain read of a path the recorder or a probe reads, and nothing else.

    :param query: the query's pairs in order (a repeated key is refused: sevDesk's PHP would
        read its last value, a check its first).
    :param raw_path: the path as sent (percent-encoded); it must equal ``path``.
    :raises ReadOnlyRefusedError: for any method but GET, an invalid or encoded path, a path
        no recording or probe reads, a repeated query key, or a GET that changes data.
    """
    if method != "GET":
        raise ReadOnlyRefusedError(
            f"Refused {method} {path}: the live scripts send GET requests only."
        )
    try:
        check_path(path)
    except WriteRefusedError:
        raise ReadOnlyRefusedError(
            f"Refused GET {path}: not a sevDesk path of API words and ids."
        ) from None
    if (raw_path is not None and raw_path != path) or not allowed(path):
        raise ReadOnlyRefusedError(
            f"Refused GET {path}: not a path the recorder or the probes read; add its template "
            "to live/recording.py ENDPOINTS or live/probes.py READS if it is a plain read."
        )
    keys = [key for key, _ in query]
    if len(set(keys)) != len(keys):
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        raise ReadOnlyRefusedError(
            f"Refused GET {path}: the query names {', '.join(repeated)} twice; give each once."
        )
    if minimum_tier(method, path, dict(query)) is not None:
        raise ReadOnlyRefusedError(
            f"Refused GET {path}: it changes data in sevDesk; the live scripts only read."
        )


class GetOnlyTransport(httpx.BaseTransport):
    """Passes plain reads to ``inner``; refuses everything else before ``inner`` is asked.

    :param prefix: the path of the API root (``/api/v1``), cut off before classifying.
    """

    def __init__(self, inner: httpx.BaseTransport, prefix: str) -> None:
        self._inner = inner
        self._prefix = prefix.rstrip("/")

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the answer of ``inner``.

        :raises ReadOnlyRefusedError: for a request that is not a plain read.
        """
        path, raw = request.url.path, request.url.raw_path.decode("ascii").split("?")[0]
        if self._prefix and path.startswith(self._prefix):
            path = path[len(self._prefix) :] or "/"
        if self._prefix and raw.startswith(self._prefix):
            raw = raw[len(self._prefix) :] or "/"
        refuse_unless_plain_read(request.method, path, request.url.params.multi_items(), raw)
        return self._inner.handle_request(request)

    def close(self) -> None:
        """Close ``inner``."""
        self._inner.close()


class LiveSession:
    """GET requests against one account, through :class:`GetOnlyTransport`.

    :param inner: the transport below the GET-only gate (the network by default).
    """

    def __init__(self, settings: LiveSettings, inner: httpx.BaseTransport | None = None) -> None:
        self.settings = settings
        prefix = urlsplit(settings.url).path
        gate = GetOnlyTransport(inner or httpx.HTTPTransport(retries=0), prefix)
        self._http = httpx.Client(
            base_url=settings.url,
            headers={
                "Authorization": settings.token,
                "User-Agent": USER_AGENT,
                "Accept": "application/json",
            },
            transport=gate,
            follow_redirects=False,
            trust_env=False,
            timeout=TIMEOUT_S,
        )

    def __enter__(self) -> LiveSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def request(self, method: str, path: str, query: Mapping[str, str] | None = None) -> Answer:
        """Send a request; anything but a plain read is refused by the transport.

        :raises ReadOnlyRefusedError: for a request that is not a plain read (nothing sent).
        :raises httpx.HTTPError: when sevDesk cannot be reached.
        """
        response = self._http.request(method, path, params=dict(query or {}))
        return Answer(
            status=response.status_code,
            headers=kept_headers(response.headers),
            body=_json_or_text(response.content),
        )

    def get(self, path: str, query: Mapping[str, str] | None = None) -> Answer:
        """:returns: the answer to ``GET path?query``.

        :raises ReadOnlyRefusedError: for a GET that changes data (nothing sent).
        :raises httpx.HTTPError: when sevDesk cannot be reached.
        """
        return self.request("GET", path, query)


def unreachable(exc: httpx.HTTPError) -> str:
    """:returns: the one line a script prints when sevDesk cannot be reached."""
    return (
        f"sevDesk could not be reached ({type(exc).__name__}); check SEVDESK_LIVE_URL and the "
        "network, then try again."
    )


def check_access(session: LiveSession) -> None:
    """Ask for the bookkeeping system version once, to see that the token is accepted.

    :raises LiveSetupError: when sevDesk refuses the token (HTTP 401 or 403).
    :raises httpx.HTTPError: when sevDesk cannot be reached.
    """
    status = session.get("/Tools/bookkeepingSystemVersion").status
    if status in (401, 403):
        raise LiveSetupError(
            f"sevDesk refused the token (HTTP {status}): check {TOKEN_VARIABLE} (the raw "
            "token of the account, without 'Bearer' or a variable name)."
        )


def kept_headers(headers: httpx.Headers) -> dict[str, str]:
    """:returns: the headers a recording keeps: content type, rate limits, versions."""
    return {
        name.lower(): value
        for name, value in sorted(headers.items())
        if name.lower() in KEPT_HEADERS or name.lower().startswith("x-ratelimit")
    }


def _json_or_text(content: bytes) -> JsonValue:
    text = content.decode("utf-8", errors="replace")
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        return text
    return value
