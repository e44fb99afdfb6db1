"""sevDesk's response envelope and error bodies.

Every success body is ``{"objects": …}`` (lists, single objects, scalars; GET by id answers an
array of one, Q1-Q2). Errors look like ``{"error": {"message", "code", "responseCode", …},
"objects": null}``, sometimes inside HTTP 200 (Q390 on cancelInvoice), and validation errors
sometimes arrive as HTTP 500 (Q32). sevDesk's own wording is untrusted: it only appears fenced.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.errors import (
    AuthenticationError,
    MalformedResponseError,
    NotFoundError,
    RejectedError,
    UnavailableError,
    UpstreamError,
    UpstreamValidationError,
)
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.fence import fence

NOT_FOUND_CODE: Final = 151
_OBJECTS: Final = msgspec.json.Decoder(float_hook=Decimal)
AUTH_REFUSED_HELP: Final = (
    "sevDesk refused the API token (HTTP {status}). It may be wrong, revoked, or belong to a "
    "deleted user. Create a new one in sevDesk (Settings > Users > API token) and set "
    "SEVDESK_API_TOKEN to the bare 32-character token, without 'Bearer'."
)


class _ErrorBody(msgspec.Struct):
    message: str | None = None
    code: int | str | None = None


class _Envelope(msgspec.Struct):
    objects: msgspec.Raw = msgspec.Raw(b"null")
    error: _ErrorBody | None = None


def unwrap(status: int, body: bytes) -> JsonValue:
    """:returns: the ``objects`` of a success answer.

    :raises UpstreamError: the classified error for an error answer (in any status).
    :raises MalformedResponseError: for a body that is not sevDesk's JSON envelope.
    """
    return decoded(objects_of(status, body))


def objects_of(status: int, body: bytes) -> msgspec.Raw:
    """:returns: the ``objects`` of a success answer as the JSON text sevDesk sent (checked to be
    JSON: msgspec reads every value it skips).

    :raises UpstreamError: the classified error for an error answer (in any status).
    :raises MalformedResponseError: for a body that is not sevDesk's JSON envelope.
    """
    try:
        envelope = msgspec.json.decode(body, type=_Envelope)
    except (msgspec.DecodeError, RecursionError):
        if status >= 300:
            raise classify(status, None) from None
        raise MalformedResponseError(
            f"sevDesk answered HTTP {status} with a body that is not its JSON envelope."
        ) from None
    if envelope.error is not None or status >= 300:
        raise classify(status, envelope.error)
    return envelope.objects


def decoded(objects: msgspec.Raw) -> JsonValue:
    """:returns: the ``objects`` of :func:`objects_of` as Python values; amounts that arrive as
    JSON numbers (``paidAmount``, Q4) become :class:`~decimal.Decimal`, never float.

    :raises MalformedResponseError: if they are nested too deeply to read.
    """
    try:
        value: JsonValue = _OBJECTS.decode(objects)
    except (msgspec.DecodeError, RecursionError):
        raise _shape("`objects` cannot be read (nested too deeply)") from None
    return value


def classify(status: int, error: _ErrorBody | None) -> UpstreamError:
    """:returns: the typed error for an error answer."""
    code = _int(error.code) if error else None
    said = fence(error.message) if error and error.message else None
    detail = f": sevDesk says {said}." if said else "."
    if status in (401, 403):
        return AuthenticationError(
            AUTH_REFUSED_HELP.format(status=status), status=status, code=code
        )
    if status == 404 or code == NOT_FOUND_CODE:
        return NotFoundError(
            f"sevDesk has no such object (HTTP {status}){detail} Check the id.",
            status=status,
            code=code,
        )
    if status == 500 and said:
        return UpstreamValidationError(
            f"sevDesk refused the request (HTTP 500, which it also uses for validation "
            f"errors){detail}",
            status=status,
            code=code,
        )
    if status >= 500:
        return UnavailableError(f"sevDesk is unavailable right now (HTTP {status}); try later.")
    kind = UpstreamValidationError if status in (400, 422) else RejectedError
    code_text = f", code {code}" if code is not None else ""
    return kind(
        f"sevDesk refused the request (HTTP {status}{code_text}){detail}", status=status, code=code
    )


def _int(value: int | str | None) -> int | None:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def one(objects: JsonValue) -> dict[str, JsonValue]:
    """:returns: the single object of a GET by id (an array of one) or of a create answer.

    :raises NotFoundError: for an empty array.
    :raises MalformedResponseError: for anything else (``null``, a scalar, an array of several:
        taking the first of those could act on the wrong record).
    """
    if isinstance(objects, list):
        if not objects:
            raise NotFoundError(
                "sevDesk has no such object; check the id (the record may have been deleted).",
                status=200,
            )
        if len(objects) > 1:
            raise _shape(f"`objects` holds {len(objects)} entries where one was expected")
        objects = objects[0]
    if not isinstance(objects, dict):
        raise _shape(f"`objects` is {_kind(objects)} where an object was expected")
    return objects


def many(objects: JsonValue) -> list[dict[str, JsonValue]]:
    """:returns: the objects of a list answer (a single bare object counts as a list of one).

    :raises MalformedResponseError: for ``null`` (sevDesk sends ``[]`` for an empty list; null
        only comes with an error) or anything but objects.
    """
    if isinstance(objects, dict):
        return [objects]  # e.g. ReceiptGuidance/forAccountNumber (Q6)
    if not isinstance(objects, list):
        raise _shape(f"`objects` is {_kind(objects)} where a list was expected")
    for index, item in enumerate(objects):
        if not isinstance(item, dict):
            raise _shape(f"`objects[{index}]` is {_kind(item)} where an object was expected")
    return [o for o in objects if isinstance(o, dict)]


def _kind(value: JsonValue) -> str:
    """:returns: the JSON kind of ``value`` (never the value: it is sevDesk's text)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a string" if isinstance(value, str) else "a number"


def _shape(what: str) -> MalformedResponseError:
    return MalformedResponseError(
        f"sevDesk answered with an unexpected shape: {what}. The answer was not used; try "
        "again, and report it if it persists."
    )
