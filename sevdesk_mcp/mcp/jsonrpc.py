"""JSON-RPC 2.0 codec on msgspec: bytes in, one message or one error answer out. No I/O.

Rules (threat list J01-J07, J10):

- malformed JSON, invalid UTF-8, ``NaN``, trailing bytes and nesting too deep for the decoder
  are a parse error (-32700, id ``null``);
- a batch (any JSON array) is refused whole with -32600 and id ``null``: nothing executes;
- an id is an integer within +/-(2**53 - 1) or a string of at most 128 characters; ``true`` is
  not ``1``; anything else is -32600, and the answer echoes the id only if it was valid;
- duplicate keys in the message object (``{"id":1,"id":2}``) are refused (-32600), because the
  decoder would silently keep the last value and two readers could see two different messages;
- ``params`` must be an object when present.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final, TypeGuard

import msgspec

from sevdesk_mcp.errors import INVALID_REQUEST, PARSE_ERROR
from sevdesk_mcp.mcp.types import JsonObject, JsonValue, RequestId

MAX_ID_INT: Final = 2**53 - 1
MAX_ID_CHARS: Final = 128
_ENVELOPE_KEYS: Final = (b'"jsonrpc"', b'"id"', b'"method"', b'"params"', b'"result"', b'"error"')

_encoder = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class Request:
    """A request: it has an id and expects exactly one answer."""

    id: RequestId
    method: str
    params: JsonObject


@dataclass(frozen=True, slots=True)
class Notification:
    """A notification: no id, never answered."""

    method: str
    params: JsonObject


@dataclass(frozen=True, slots=True)
class Response:
    """A response from the peer to a request we sent (result or error)."""

    id: RequestId
    result: JsonObject | None
    error: JsonObject | None


@dataclass(frozen=True, slots=True)
class Rejected:
    """A message that could not be accepted; ``answer`` is the error to send back."""

    answer: JsonObject


Message = Request | Notification | Response | Rejected


def error_answer(
    request_id: RequestId | None, code: int, message: str, data: JsonValue = None
) -> JsonObject:
    """:returns: a JSON-RPC error answer."""
    err: JsonObject = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": err}


def result_answer(request_id: RequestId, result: JsonObject) -> JsonObject:
    """:returns: a JSON-RPC result answer."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def encode(message: JsonObject) -> bytes:
    """:returns: the compact JSON bytes of ``message`` (no trailing newline)."""
    return _encoder.encode(message)


def decode(data: bytes) -> Message:
    """Decode one JSON-RPC message.

    :returns: the message, or :class:`Rejected` carrying the error answer; never raises.
    """
    try:
        obj = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return Rejected(
            error_answer(None, PARSE_ERROR, "Parse error: the message is not valid JSON")
        )
    if isinstance(obj, list):
        return _invalid(None, "Batches are not supported; send one JSON-RPC message per line")
    if not isinstance(obj, dict):
        return _invalid(None, "A JSON-RPC message must be a JSON object")
    if _has_duplicate_keys(data):
        return _invalid(None, "The message object contains duplicate keys")
    return _classify(obj)


def _classify(obj: dict[str, JsonValue]) -> Message:
    raw_id = obj.get("id")
    request_id = raw_id if valid_id(raw_id) else None
    if obj.get("jsonrpc") != "2.0":
        return _invalid(request_id, 'The field "jsonrpc" must be "2.0"')
    if "method" in obj:
        return _classify_call(obj, request_id)
    if "result" in obj or "error" in obj:
        return _classify_response(obj, request_id)
    return _invalid(request_id, "A message needs a method (request) or a result/error (response)")


def _classify_call(obj: dict[str, JsonValue], request_id: RequestId | None) -> Message:
    method = obj["method"]
    if not isinstance(method, str) or not method:
        return _invalid(request_id, 'The field "method" must be a non-empty string')
    if "result" in obj or "error" in obj:
        return _invalid(request_id, "A request must not carry result or error fields")
    params = obj.get("params", {})
    if not isinstance(params, dict):
        return _invalid(request_id, 'The field "params" must be an object')
    if "id" not in obj:
        return Notification(method, params)
    if request_id is None:
        return _invalid(None, _ID_RULE)
    return Request(request_id, method, params)


def _classify_response(obj: dict[str, JsonValue], request_id: RequestId | None) -> Message:
    result, error = obj.get("result"), obj.get("error")
    if request_id is None or ("result" in obj) == ("error" in obj):
        return _invalid(request_id, "A response needs a valid id and exactly one of result, error")
    if not isinstance(result, dict | None) or not isinstance(error, dict | None):
        return _invalid(request_id, "A response's result and error must be objects")
    return Response(request_id, result, error)


_ID_RULE: Final = (
    f"The id must be an integer within +/-{MAX_ID_INT} or a string of at most "
    f"{MAX_ID_CHARS} characters"
)


def valid_id(value: object) -> TypeGuard[RequestId]:
    """:returns: whether ``value`` is an acceptable JSON-RPC id (``bool`` never is)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -MAX_ID_INT <= value <= MAX_ID_INT
    return isinstance(value, str) and len(value) <= MAX_ID_CHARS


def _invalid(request_id: RequestId | None, message: str) -> Rejected:
    return Rejected(error_answer(request_id, INVALID_REQUEST, f"Invalid request: {message}"))


def _has_duplicate_keys(data: bytes) -> bool:
    # Cheap screen first: a duplicate envelope key needs one of them twice in the raw bytes.
    # Only then pay for a second parse that sees the keys of the outermost object, which the
    # decoder hands to the hook last, after every nested object.
    if all(data.count(key) < 2 for key in _ENVELOPE_KEYS):
        return False
    outermost_has_duplicates = False

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        nonlocal outermost_has_duplicates
        out = dict(items)
        outermost_has_duplicates = len(out) != len(items)
        return out

    try:
        json.loads(data, object_pairs_hook=pairs)
    except RecursionError:
        return True  # too deep to check: refuse rather than guess which key wins
    return outermost_has_duplicates
