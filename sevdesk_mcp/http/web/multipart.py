"""A strict reader of ``multipart/form-data`` (the upload form without JavaScript).

Each part needs a ``Content-Disposition: form-data`` with a name; a name given twice, more than
:data:`MAX_PARTS` parts, a missing closing delimiter or a malformed part head (a lone CR or LF,
a header or a disposition parameter given twice, another disposition type) refuse the whole
body (``None``): two readers must never disagree about what a part is.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from sevdesk_mcp.safety.redact import Undisclosed

MAX_PARTS: Final = 4
MAX_HEAD_BYTES: Final = 1024
_BOUNDARY: Final = re.compile(r'boundary="?([0-9A-Za-z\'()+_,./:=?-]{1,70})"?')
_PARAM: Final = re.compile(r';\s*(name|filename)="([^"\r\n]{0,255})"')


class Part(Undisclosed, msgspec.Struct, frozen=True):
    """One field: its bytes, and for a file its name and declared type."""

    data: bytes
    filename: str | None = None
    content_type: str = ""


def parse(content_type: str, body: bytes) -> dict[str, Part] | None:
    """:returns: the parts by name, or ``None`` if the body is not a strict multipart form."""
    media, _, params = content_type.partition(";")
    match = _BOUNDARY.search(params)
    if media.strip().lower() != "multipart/form-data" or match is None:
        return None
    pieces = (b"\r\n" + body).split(b"\r\n--" + match[1].encode())
    if len(pieces) < 3 or pieces[0] or not pieces[-1].startswith(b"--"):
        return None
    if len(pieces) - 2 > MAX_PARTS:
        return None
    parts: dict[str, Part] = {}
    for piece in pieces[1:-1]:
        named = _part(piece)
        if named is None or named[0] in parts:
            return None
        parts[named[0]] = named[1]
    return parts


def _part(piece: bytes) -> tuple[str, Part] | None:  # noqa: PLR0911 - one refusal per rule
    if not piece.startswith(b"\r\n"):
        return None
    head, sep, data = piece[2:].partition(b"\r\n\r\n")
    if not sep or len(head) > MAX_HEAD_BYTES:
        return None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\r\n")
    if any("\r" in line or "\n" in line for line in lines):  # a lone CR or LF in the head
        return None
    headers: dict[str, str] = {}
    for line in lines:
        name, colon, value = line.partition(":")
        if not colon or name.strip().lower() in headers:
            return None
        headers[name.strip().lower()] = value.strip()
    kind, _, rest = headers.get("content-disposition", "").partition(";")
    if kind.strip().lower() != "form-data":
        return None
    found = _PARAM.findall(";" + rest)
    params = dict(found)
    if "name" not in params or len(params) != len(found):  # a parameter twice is ambiguous
        return None
    part = Part(data, params.get("filename"), headers.get("content-type", ""))
    return params["name"], part
