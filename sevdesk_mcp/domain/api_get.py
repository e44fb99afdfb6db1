"""The generic read behind the generic GET tool, for what no task tool covers.

Four guards, each on its own (a test per guard):

1. **Path allowlist** (:func:`refusal`): the path follows the path rules (API words and ids
   only, ``paths.check_path``) and starts with a resource this read may show; query names
   follow the query rules and values are one short line.
2. **No side-effect GETs** (:func:`refusal`): nothing whose ``paths.minimum_tier`` is set (a
   ``getPdf`` that marks a document sent, a number reservation, a DATEV job) and no action
   segment (render, send, book, export, …).
3. **The tier gate**: the request goes out through the account's read-only view, whose gate
   refuses anything above ``read`` before it is sent, whatever guards 1 and 2 let through.
4. **Output cleaning** (:func:`shown`): every text value of the answer is untrusted text,
   cleaned and fenced; keys that are not API words are dropped; known secrets are masked; the
   output is capped and says what was cut. Answers larger than 1 MiB are not read at all.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import parse_qsl

import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.errors import ToolInputError, WriteRefusedError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.safety.redact import REDACTOR
from sevdesk_mcp.sevdesk.client import MiB, SevdeskClient
from sevdesk_mcp.sevdesk.paths import check_path, encode_query, minimum_tier

MAX_READ_BYTES: Final = MiB
MAX_OUTPUT_CHARS: Final = 40_000
READABLE: Final = frozenset(
    {
        "AccountingContact",
        "Category",
        "CheckAccount",
        "CheckAccountTransaction",
        "CommunicationWay",
        "Contact",
        "ContactAddress",
        "ContactCustomField",
        "CreditNote",
        "CreditNotePos",
        "Invoice",
        "InvoicePos",
        "Order",
        "OrderPos",
        "Part",
        "PaymentMethod",
        "ReceiptGuidance",
        "StaticCountry",
        "Tag",
        "TagRelation",
        "TextTemplate",
        "Unity",
        "Voucher",
        "VoucherPos",
    }
)
_ACTION: Final = re.compile(
    r"^(get(Pdf|Xml|Document|Zip|Csv)|send|book|create|reset|cancel|enshrine|export|render|"
    r"change|mark|delete|save|update|upload|download|Factory)",
    re.IGNORECASE,
)
_VALUE: Final = re.compile(r"^[^\x00-\x1f\x7f]{0,200}$")
_KEY: Final = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_PLAIN: Final = re.compile(r"^-?[0-9][0-9.:+\-TZ ]{0,39}$")  # numbers, ids, dates


class Shown(msgspec.Struct, frozen=True):
    """The cleaned answer: JSON text, how many objects it had and showed, what was cut."""

    data: str
    objects: int
    shown: int
    note: str | None


def parse_query(text: str | None) -> dict[str, str]:
    """:returns: the query string as names and values.

    :raises ToolInputError: for a malformed query, a repeated name or a value that is not one
        short line.
    """
    if not text:
        return {}
    try:
        pairs = parse_qsl(text.lstrip("?"), keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise ToolInputError(
            "query is not a query string; write it as name=value&name=value, e.g. limit=10"
        ) from None
    query = dict(pairs)
    if len(query) != len(pairs):
        raise ToolInputError("query names a parameter twice; give each name once.")
    if not all(_VALUE.match(v) for v in query.values()):
        raise ToolInputError("query values must be one line of at most 200 characters each.")
    return query


def refusal(path: str, query: dict[str, str]) -> str | None:
    """Guards 1 and 2. :returns: why the read is refused and what to do, or ``None``."""
    try:
        check_path(path)
        encode_query(query)
    except WriteRefusedError:
        return (
            f"path and query must follow the path rules: /Resource, /Resource/<id> or "
            f"/Resource/<id>/<word>, made of API words and numeric ids, and query names of "
            f"letters, digits, _ and [..] ({path[:60]!r} does not)"
        )
    segments = path.strip("/").split("/")
    if segments[0] not in READABLE:
        return (
            f"{segments[0]!r} is not a resource this read may show; readable resources: "
            f"{', '.join(sorted(READABLE))}"
        )
    if minimum_tier("GET", path, query) is not None or any(_ACTION.match(s) for s in segments):
        return (
            "this GET may change data or render files in sevDesk (a side effect); use the task "
            "tool for it (PDFs have their own tool, which never marks a document as sent)"
        )
    return None


def capped(client: SevdeskClient) -> SevdeskClient:
    """:returns: a view of ``client`` that refuses answers larger than 1 MiB before reading
    them whole (the client's own cap is larger)."""
    view = client.view(gate=client.gate, stamp=None)
    limits = msgspec.structs.replace(view._limits, max_response_bytes=MAX_READ_BYTES)
    view._limits = limits  # the view is this module's own copy
    return view


async def read(client: SevdeskPort, path: str, query: dict[str, str]) -> JsonValue:
    """Guard 3: send the GET through ``client`` (the account's read-only view).

    :raises WriteRefusedError: if the gate refuses the request.
    :raises UpstreamError: if sevDesk cannot be read or the answer is over the cap.
    """
    return await client.get(path, query)


def shown(answer: JsonValue) -> Shown:
    """Guard 4: the answer cleaned, fenced, masked and capped."""
    items = answer if isinstance(answer, list) else [answer]
    kept: list[str] = []
    size = 2
    for item in items:
        text = msgspec.json.encode(_clean(item, None)).decode("utf-8")
        if size + len(text) + 1 > MAX_OUTPUT_CHARS:
            break
        kept.append(text)
        size += len(text) + 1
    note = _cut_note(len(kept), len(items), isinstance(answer, list))
    body = "[" + ",".join(kept) + "]" if isinstance(answer, list) else (kept or ["null"])[0]
    return Shown(REDACTOR(body), len(items), len(kept), note)


def _cut_note(kept: int, total: int, is_list: bool) -> str | None:
    if kept == total:
        return None
    if not is_list:
        return (
            f"Cut: the object is larger than the output cap of {MAX_OUTPUT_CHARS} characters "
            "and is not shown; read a narrower path."
        )
    return (
        f"Cut: showing the first {kept} of {total} objects (output cap {MAX_OUTPUT_CHARS} "
        "characters); ask for fewer with limit and offset in query."
    )


def _clean(value: JsonValue, key: str | None) -> JsonValue:
    if isinstance(value, dict):
        return {k: _clean(v, k) for k, v in value.items() if _KEY.match(k)}
    if isinstance(value, list):
        return [_clean(v, key) for v in value]
    if isinstance(value, str):
        if _PLAIN.match(value) or (key == "objectName" and _KEY.match(value)):
            return value
        return fence(value)
    return value
