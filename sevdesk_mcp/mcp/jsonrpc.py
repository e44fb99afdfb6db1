"""JSON-RPC 2.0 codec on msgspec: bytes in, one message or one error answer out. No I/O.

Rules (threat list J01-J07, J10):

- malformed JSON, invalid UTF-8, ``NaN``, trailing bytes and nesting too deep for the decoder
  are a parse error (-32700, id ``null``);
- a batch (any JSON array) is refused whole with -32600 and id ``null``: nothing executes;
- an id is an integer within +/-(2**53 - 1) or a string of at most 128 characters; ``true`` is
  not ``1``; anything else is -32600, and the answer echoes the id only if it was valid;
- a key repeated in the message object (``{"id":1,"id":2}``), in ``params``, ``result`` or
  ``error``, or in an object directly inside those (``params._meta``, ``params.arguments``) is
  refused (-32600): the decoder would silently keep the last value, and a reader that keeps the
  first (a gateway, a logger) would see another message. Keys are compared after unescaping, so
  ``"\\u0069d"`` is ``"id"``. The answer echoes no id when the envelope repeats a key;
- ``params`` must be an object when present.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Final, TypeGuard

import msgspec

from sevdesk_mcp.errors import INVALID_REQUEST, PARSE_ERROR
from sevdesk_mcp.mcp.types import JsonObject, JsonValue, RequestId

MAX_ID_INT: Final = 2**53 - 1
MAX_ID_CHARS: Final = 128
MAX_SCREENED_KEYS: Final = 64
MAX_SCREENED_BYTES: Final = 8 * 1024 * 1024  # bytes the screen's counts read at most
MAX_SHOWN_KEY_CHARS: Final = 64
_CHECKED_DEPTH: Final = 2  # the message, params/result/error, and the objects right inside them
_OTHER_SPELLINGS: Final = (b"\\u", b"\\/")  # the escapes that can write a character two ways

_encoder = msgspec.json.Encoder()


class Request(msgspec.Struct, frozen=True):
    """A request: it has an id and expects exactly one answer."""

    id: RequestId
    method: str
    params: JsonObject


class Notification(msgspec.Struct, frozen=True):
    """A notification: no id, never answered."""

    method: str
    params: JsonObject


class Response(msgspec.Struct, frozen=True):
    """A response from the peer to a request we sent (result or error)."""

    id: RequestId
    result: JsonObject | None
    error: JsonObject | None


class Rejected(msgspec.Struct, frozen=True):
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


def encode_result(request_id: int, result: bytes) -> bytes:
    """:returns: the compact JSON bytes of a result answer whose result is encoded already
    (the same bytes as :func:`encode` of :func:`result_answer`)."""
    return _encoder.encode({"jsonrpc": "2.0", "id": request_id, "result": msgspec.Raw(result)})


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
    repeated = _repeated_key(data, obj)
    if repeated is not None:
        where, message = repeated
        return _invalid(None if where == _MESSAGE else _valid_id_of(obj), message)
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


def _valid_id_of(obj: dict[str, JsonValue]) -> RequestId | None:
    raw_id = obj.get("id")
    return raw_id if valid_id(raw_id) else None


# Repeated keys (J06). Only a second parse with a pairs hook sees them; it is paid only when the
# cheap screen cannot rule a repetition out. The screen is exact, not a guess: without ``\u``
# and ``\/`` escapes every key has one spelling (``"`` and ``\`` are always escaped, control
# characters always by their short escape, everything else written as is), so a key repeated
# in a checked object is that spelling found at least twice in the bytes.

_MESSAGE: Final = "the message object"


class _Repeated(dict[str, object]):
    """An object of the second parse whose text repeats ``key``."""

    def __init__(self, items: dict[str, object], key: str) -> None:
        super().__init__(items)
        self.key = key


def _repeated_key(data: bytes, obj: Mapping[str, object]) -> tuple[str, str] | None:
    """:returns: the path of the first checked object that repeats a key, and the refusal's
    text; ``None`` if none does. A message nested too deep for the second parse is refused
    rather than guessing which value wins."""
    if not _may_repeat(data, obj):
        return None
    repeating: list[_Repeated] = []
    try:
        tree = json.loads(data, object_pairs_hook=functools.partial(_pairs, repeating))
    except (RecursionError, ValueError):
        return _MESSAGE, "the message is nested too deep to check it for repeated keys"
    if not repeating:
        return None  # no object at all repeats a key: no need to walk the checked ones
    for where, item in _checked_objects(tree):
        if isinstance(item, _Repeated):
            shown = _shown(item.key)
            return where, (
                f'{where} holds the key "{shown}" more than once (keys are compared after '
                'unescaping, so "\\u0069d" is "id"); send every key once'
            )
    return None


def _may_repeat(data: bytes, obj: Mapping[str, object]) -> bool:
    """:returns: whether a checked object of ``obj`` may repeat a key in ``data``."""
    if b"\\" in data and any(escape in data for escape in _OTHER_SPELLINGS):
        return True  # a key may be written two ways: only a parse can compare them
    keys = _checked_keys(obj)
    if keys is None:
        return True  # counting every key would cost more than the parse
    if len(keys) * len(data) > MAX_SCREENED_BYTES:
        return True  # large and with many keys: mostly long strings, which parse fast
    return any(data.count(_spelling(key)) > 1 for key in keys)


def _checked_keys(obj: Mapping[str, object]) -> set[str] | None:
    """:returns: the keys of the objects :func:`_checked_objects` yields (without their
    paths, which only a refusal needs), or ``None`` past :data:`MAX_SCREENED_KEYS`."""
    keys = set(obj)
    level: list[Mapping[str, object]] = [obj]
    for _ in range(_CHECKED_DEPTH):
        inner: list[Mapping[str, object]] = [
            value for item in level for value in item.values() if isinstance(value, dict)
        ]
        for item in inner:
            if len(keys) + len(item) > MAX_SCREENED_KEYS:
                return None
            keys.update(item)
        level = inner
    return keys if len(obj) <= MAX_SCREENED_KEYS else None


_SPELLINGS: dict[str, bytes] = {}  # the JSON spelling of keys seen, for the screen
_MAX_SPELLINGS: Final = 1024


def _spelling(key: str) -> bytes:
    """:returns: ``key`` as JSON writes it (quoted), from a bounded cache: most messages use
    the same few dozen keys."""
    spelled = _SPELLINGS.get(key)
    if spelled is None:
        if len(_SPELLINGS) >= _MAX_SPELLINGS:
            _SPELLINGS.clear()
        spelled = _SPELLINGS[key] = _encoder.encode(key)
    return spelled


def _checked_objects(obj: Mapping[str, object]) -> Iterator[tuple[str, Mapping[str, object]]]:
    """:returns: the message object and the objects up to :data:`_CHECKED_DEPTH` levels inside
    it (through object members, not arrays), each with its path (``params._meta``)."""
    yield _MESSAGE, obj
    level: list[tuple[str, Mapping[str, object]]] = [("", obj)]
    for _ in range(_CHECKED_DEPTH):
        inner: list[tuple[str, Mapping[str, object]]] = []
        for path, item in level:
            for key, value in item.items():
                if isinstance(value, dict):
                    where = f"{path}.{_shown(key)}" if path else _shown(key)
                    inner.append((where, value))
                    yield where, value
        level = inner


def _pairs(repeating: list[_Repeated], items: list[tuple[str, object]]) -> dict[str, object]:
    """The second parse's object hook: marks an object whose text repeats a key, and collects
    it in ``repeating``."""
    out = dict(items)
    if len(out) == len(items):
        return out
    counts = Counter(key for key, _ in items)
    repeated = _Repeated(out, next(key for key, count in counts.items() if count > 1))
    repeating.append(repeated)
    return repeated


def _shown(key: str) -> str:
    return key if len(key) <= MAX_SHOWN_KEY_CHARS else key[:MAX_SHOWN_KEY_CHARS] + "..."
