"""The reads a rehearsal makes at the real account itself (through the guard): the records a
write names, their positions, the real number ranges and the bookkeeping version."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final, NamedTuple

import httpx
import msgspec

from sevdesk_mcp.errors import RehearsalRefusedError
from sevdesk_mcp.fake.transport import API_PREFIX
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.rehearsal.guard import Guard
from sevdesk_mcp.rehearsal.seed import Key
from sevdesk_mcp.sevdesk.endpoints import find

_KEPT_HEADERS: Final = ("authorization", "accept", "user-agent")
# The number range each kind of document is numbered from (objectType, type).
SEQUENCE_OF: Final = {
    "Invoice": ("Invoice", "RE"),
    "CreditNote": ("CreditNote", "CN"),
    "Order": ("Order", "AN"),
}
SEQUENCE_PATH: Final = "/SevSequence/Factory/getByType"
_NUMBER: Final = "%NUMBER"
LOG_PATH: Final = "/CheckAccountTransactionLog"
LOG_PAGE: Final = 1000
LOG_PAGES: Final = 100  # 100,000 booking logs at most: a server that ignored offset would loop


def is_json(response: httpx.Response) -> bool:
    """:returns: whether ``response`` carries JSON."""
    return "json" in response.headers.get("content-type", "")


def decoded(content: bytes) -> JsonValue:
    """:returns: ``content`` as JSON, or ``None`` when it is not JSON."""
    try:
        value: JsonValue = msgspec.json.decode(content)
    except msgspec.DecodeError:
        return None
    return value


class Upstream:
    """Plain reads at the real account, shaped like the request that needs them.

    :param guard: the guard in front of the real account.
    :param like: a request of the client (its host, API root and token are reused).
    """

    def __init__(self, guard: Guard, like: httpx.Request) -> None:
        self._guard = guard
        root, found, _ = like.url.path.partition(API_PREFIX)
        self._root = root + found
        self._url = like.url
        self._headers = [(k, v) for k, v in like.headers.items() if k.lower() in _KEPT_HEADERS]

    async def objects(self, path: str, params: Mapping[str, str] | None = None) -> JsonValue:
        """:returns: the ``objects`` of the real answer to ``GET path``, or ``None`` when it is
        not a JSON success.

        :raises RehearsalRefusedError: if the read is not a plain read (a bug of the caller).
        :raises httpx.HTTPError: when the real account cannot be reached.
        """
        url = self._url.copy_with(path=self._root + path, params=dict(params or {}))
        response = await self._guard.handle_async_request(
            httpx.Request("GET", url, headers=self._headers)
        )
        content = await response.aread()
        await response.aclose()
        if response.status_code != httpx.codes.OK or not is_json(response):
            return None
        body = decoded(content)
        return body.get("objects") if isinstance(body, dict) else None

    async def record(self, key: Key) -> JsonValue:
        """:returns: the real record ``key`` (a list of one), or ``None``."""
        return await self.objects(f"/{key[0]}/{key[1]}")

    async def positions(self, model: str, ident: int, pos_model: str, field: str) -> JsonValue:
        """:returns: the real positions of document ``model`` ``ident``."""
        return await self.objects(
            f"/{pos_model}", {f"{field}[id]": str(ident), f"{field}[objectName]": model}
        )

    async def next_number(self, model: str) -> RealRange | None:
        """:returns: the real next number of ``model``'s range and its format (read without
        taking it), or ``None`` when the real account did not answer one."""
        object_type, kind = SEQUENCE_OF[model]
        answer = await self.objects(
            SEQUENCE_PATH, {"objectType": object_type, "type": kind, "useNextNumber": "false"}
        )
        return real_range(answer)

    async def booking_logs(self, touching: set[Key]) -> list[dict[str, JsonValue]]:
        """:returns: the real booking logs (``CheckAccountTransactionLog``) of a record of
        ``touching``: a document they book, or the transaction they book from (every page)."""
        found: list[dict[str, JsonValue]] = []
        for offset in range(0, LOG_PAGE * LOG_PAGES, LOG_PAGE):
            page = await self.objects(LOG_PATH, {"limit": str(LOG_PAGE), "offset": str(offset)})
            rows = page if isinstance(page, list) else []
            found.extend(r for r in rows if isinstance(r, dict) and _books_one(r, touching))
            if len(rows) < LOG_PAGE:
                return found
        raise RehearsalRefusedError(
            f"Refused to read more than {LOG_PAGE * LOG_PAGES:,} booking logs to rehearse a "
            "booking; nothing was changed: do this step outside the rehearsal."
        )

    async def version(self) -> str:
        """:returns: the real bookkeeping system version (``"2.0"`` when unreadable)."""
        answer = await self.objects("/Tools/bookkeepingSystemVersion")
        value = answer.get("version") if isinstance(answer, dict) else None
        return value if isinstance(value, str) else "2.0"


class RealRange(NamedTuple):
    """A real number range as ``SevSequence/Factory/getByType`` answers it.

    :ivar value: the next number's numeric part.
    :ivar pattern: the range's format (``RE-%NUMBER``, ``RE%YYYY-%NUMBER``, ...).
    :ivar width: the digits ``%NUMBER`` is zero-padded to (0: not padded).
    """

    value: int
    pattern: str
    width: int


def real_range(objects: JsonValue) -> RealRange | None:
    """:returns: the range in a SevSequence answer's ``objects``; a format without
    ``%NUMBER`` is read as the bare number (as the server's client reads it), a
    ``nextSequence`` with leading zeros sets the padding."""
    if not isinstance(objects, dict):
        return None
    value, pattern = objects.get("nextSequence"), objects.get("format")
    text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
    if not text.isdigit():
        return None
    if not isinstance(pattern, str) or _NUMBER not in pattern:
        pattern = _NUMBER
    width = len(text) if text.startswith("0") and len(text) > 1 else 0
    return RealRange(int(text), pattern, width)


def has_record_read(model: str) -> bool:
    """:returns: whether sevDesk answers ``GET /model/{id}`` (the server's endpoint table)."""
    return find("GET", f"/{model}/1") is not None


def named_refs(value: object) -> Iterator[Key]:
    """:returns: every ``{"id", "objectName"}`` reference inside a request body."""
    if isinstance(value, dict):
        name, ident = value.get("objectName"), value.get("id")
        if isinstance(name, str) and isinstance(ident, str | int) and str(ident).isdigit():
            yield (name, int(ident))
        for inner in value.values():
            yield from named_refs(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from named_refs(inner)


def query_refs(query: Mapping[str, str]) -> Iterator[Key]:
    """:returns: the references a query names as ``x[id]`` (with ``x[objectName]``, or the
    model named by ``x``: ``invoice[id]`` is an Invoice)."""
    for key, value in query.items():
        if key.endswith("[id]") and value.isdigit():
            field = key[: -len("[id]")]
            name = query.get(f"{field}[objectName]") or field[:1].upper() + field[1:]
            yield (name, int(value))


def ref_key(value: JsonValue) -> Key | None:
    """:returns: the ``(objectName, id)`` of a wire reference, or ``None``."""
    if not isinstance(value, dict):
        return None
    name, ident = value.get("objectName"), value.get("id")
    if isinstance(name, str) and isinstance(ident, str | int) and str(ident).isdigit():
        return (name, int(ident))
    return None


def _books_one(log: dict[str, JsonValue], touching: set[Key]) -> bool:
    return bool(
        {ref_key(log.get("object")), ref_key(log.get("checkAccountTransaction"))} & touching
    )
