"""The bridge between h11 and the handlers: a parsed request head and its headers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

HeaderList = list[tuple[str, str]]

JSON_TYPE: Final = "application/json"


class Headers:
    """Request headers: names compared case-insensitively, values decoded as Latin-1.

    Values keep their case; surrounding whitespace is stripped.
    """

    __slots__ = ("_count", "_values")

    def __init__(self, raw: Sequence[tuple[bytes, bytes]]) -> None:
        values: dict[str, list[str]] = {}
        for k, v in raw:
            name, value = k.decode("latin-1").lower(), v.decode("latin-1").strip()
            if name in values:
                values[name].append(value)
            else:
                values[name] = [value]
        self._values = values
        self._count = len(raw)

    def get(self, name: str) -> str | None:
        """:returns: the first value of ``name``, or ``None``."""
        values = self._values.get(name.lower())
        return values[0] if values else None

    def get_all(self, name: str) -> list[str]:
        """:returns: every value of ``name``, in order."""
        return list(self._values.get(name.lower(), ()))

    def names(self) -> list[str]:
        """:returns: the distinct header names, in lower case, in the order they first occur."""
        return list(self._values)

    def count(self, name: str) -> int:
        """:returns: how many times ``name`` occurs."""
        return len(self.get_all(name))

    def __len__(self) -> int:
        return self._count


class Request(msgspec.Struct, frozen=True):
    """A request head, as the router and handlers see it.

    :param method: the method, such as ``POST``.
    :param path: the raw path, without the query string.
    :param query: the raw query string (may be empty).
    :param headers: the request headers.
    :param peer: the address of the socket peer (a proxy, if there is one).
    """

    method: str
    path: str
    query: str
    headers: Headers
    peer: str

    @property
    def has_body(self) -> bool:
        """:returns: whether the request announces a body."""
        length = self.headers.get("content-length")
        return self.headers.get("transfer-encoding") is not None or length not in (None, "0")
