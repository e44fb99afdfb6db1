"""The one reader of forms and queries, and of cookies.

- A form (or query) is read strictly: each field once, UTF-8, at most :data:`MAX_FIELDS`
  fields, each value within :data:`MAX_VALUE_CHARS` and without a control character; anything
  else raises :class:`~sevdesk_mcp.errors.FormError`, with a message the OAuth endpoints send
  as ``invalid_request`` (RFC 6749 3.1, O07). Two readers must never disagree about a field.
- A form body must be ``application/x-www-form-urlencoded``; its size is the caller's cap.
- A cookie counts only when the request sends it exactly once.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import parse_qsl

from sevdesk_mcp.errors import FormError
from sevdesk_mcp.http.connection import Exchange

FORM_TYPE: Final = "application/x-www-form-urlencoded"
MAX_FIELDS: Final = 32
MAX_VALUE_CHARS: Final = 4096
MAX_FORM_BYTES: Final = 8 * 1024
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]")


def params(raw: str, max_fields: int = MAX_FIELDS) -> dict[str, str]:
    """:returns: the fields of a query string or form body, each present once.

    :raises FormError: for a repeated, malformed or surplus field, or one not UTF-8.
    """
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=False, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise FormError("The parameters are not valid UTF-8.") from None
    if len(pairs) > max_fields:
        raise FormError(f"Send at most {max_fields} parameters.")
    fields: dict[str, str] = {}
    for name, value in pairs:
        if name in fields:
            raise FormError(f"The parameter {_safe(name)} is repeated.")
        if len(value) > MAX_VALUE_CHARS or _CONTROL.search(value):
            raise FormError(f"The parameter {_safe(name)} is malformed.")
        fields[name] = value
    return fields


def form_of(content_type: str | None, body: bytes, max_fields: int = MAX_FIELDS) -> dict[str, str]:
    """:returns: the fields of a form body already read.

    :raises FormError: if it is not a strict UTF-8 form (:func:`params`).
    """
    _check_type(content_type)
    try:
        return params(body.decode("utf-8"), max_fields)
    except UnicodeDecodeError:
        raise FormError("The form is not valid UTF-8.") from None


async def read_form(exchange: Exchange, max_bytes: int = MAX_FORM_BYTES) -> dict[str, str]:
    """:returns: the form of a POST (the media type checked before the body is read).

    :raises FormError: if it is not a strict UTF-8 form.
    :raises HttpError: 413 over ``max_bytes``.
    """
    content_type = exchange.request.headers.get("content-type")
    _check_type(content_type)
    return form_of(content_type, await exchange.read_body(max_bytes))


async def posted_form(exchange: Exchange, max_bytes: int = MAX_FORM_BYTES) -> dict[str, str] | None:
    """:returns: the form of a POST, or ``None`` if it is not a strict, bounded form.

    :raises HttpError: 413 over ``max_bytes``.
    """
    try:
        return await read_form(exchange, max_bytes)
    except FormError:
        return None


def cookie(values: list[str], name: str) -> str | None:
    """:returns: the value of the cookie ``name`` in the ``Cookie`` headers ``values`` if the
    request sent it exactly once."""
    found = [
        value.strip()
        for header in values
        for key, sep, value in (part.strip().partition("=") for part in header.split(";"))
        if sep and key == name
    ]
    return found[0] if len(found) == 1 else None


def cookie_attributes(max_age_s: int, *, https: bool) -> str:
    """:returns: the attributes of a cookie of a page (``SameSite=Strict``, ``HttpOnly``;
    ``Secure`` over https)."""
    secure = "; Secure" if https else ""
    return f"Path=/; Max-Age={max_age_s}; HttpOnly; SameSite=Strict{secure}"


def _check_type(content_type: str | None) -> None:
    if (content_type or "").partition(";")[0].strip().lower() != FORM_TYPE:
        raise FormError(f"Send the parameters as {FORM_TYPE} (a form body, not JSON).")


def _safe(name: str) -> str:
    return repr(name[:40]) if name.isprintable() else "(unprintable)"
