"""The transport-neutral request and outcome that the fake's transports translate."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass


class Action(enum.Enum):
    """What the transport does with an outcome."""

    ANSWER = "answer"
    RESET = "reset"
    TIMEOUT = "timeout"


@dataclass(frozen=True, slots=True)
class Incoming:
    """A request, independent of the transport. Header names are lower case."""

    method: str
    path: str
    query: dict[str, str]
    headers: Mapping[str, str]
    body: bytes = b""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The fake's decision about one request."""

    action: Action
    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
