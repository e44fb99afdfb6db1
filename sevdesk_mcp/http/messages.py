"""The bridge between h11 and the handlers: a parsed request head and its headers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

HeaderList = list[tuple[str, str]]

JSON_TYPE: Final = "application/json"


class Headers:
    """Request headers: names compared case-insensitively, values decoded as Latin-1.

    Values keep their case; surrounding whitespace is stripped.
    """

    __slots__ = ("_items",)

    def __init__(self, raw: Sequence[tuple[bytes, bytes]]) -> None:
        self._items = [(k.decode("latin-1").lower(), v.decode("latin-1").strip()) for k, v in raw]

    def get(self, name: str) -> str | None:
        """:returns: the first value of ``name``, or ``None``."""
        name = name.lower()
        return next((v for k, v in self._items if k == name), None)

    def get_all(self, name: str) -> list[str]:
        """:returns: every value of ``name``, in order."""
        name = name.lower()
        return [v for k, v in self._items if k == name]

    def count(self, name: str) -> int:
        """:returns: how many times ``name`` occurs."""
        return len(self.get_all(name))

    def __len__(self) -> int:
        return len(self._items)


@dataclass(frozen=True, slots=True)
class Request:
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
