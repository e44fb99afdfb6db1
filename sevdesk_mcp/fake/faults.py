"""Switchable failures of the fake and its request log.

Error answers and connection resets share one queue: each request takes the next one, in the
order they were queued. Timeouts after a write are taken only by requests that change data.
All of them work on the httpx transport and on the served form alike. ``validation_as_500``
models Q32 (validation errors answered as HTTP 500); ``timeout_after_write_next`` models Q33
(an error or a timeout does not mean "not written"); ``parent_number_for_persons`` models Q31
(a person created under an organisation gets the organisation's customer number).
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Final

DEFAULT_TIMEOUT_HOLD_S: Final = 0.5


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the fake received.

    :param method: the HTTP method.
    :param path: the path after ``/api/v1``.
    :param query: the query parameters (the last value wins for a repeated key).
    :param body: the raw request body.
    :param applied: whether the request changed the account's state.
    """

    method: str
    path: str
    query: dict[str, str]
    body: bytes
    applied: bool


@dataclass(frozen=True, slots=True)
class Failure:
    """A queued fault: an error answer with ``status``, or a dropped connection (``reset``)."""

    status: int = 0
    retry_after: str | None = None
    reset: bool = False


class Faults:
    """Failures to inject, switchable per test.

    :ivar latency_s: delay added to every request, in seconds.
    :ivar validation_as_500: answer validation errors (HTTP 400/422) as HTTP 500 (Q32).
    :ivar parent_number_for_persons: POST /Contact of a person with ``parent`` stores the
        parent's customer number instead of the one sent (Q31, UNVERIFIED, so off by default).
    :ivar timeout_hold_s: served form only: how long a "timed out" request holds the socket
        before closing it without an answer.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.latency_s = 0.0
        self.validation_as_500 = False
        self.parent_number_for_persons = False
        self.timeout_hold_s = DEFAULT_TIMEOUT_HOLD_S
        self._queue: deque[Failure] = deque()
        self._timeouts = 0

    def fail_next(self, status: int, times: int = 1, retry_after: str | None = None) -> None:
        """Answer the next ``times`` requests with ``status`` and sevDesk's error body.

        :param retry_after: the ``Retry-After`` header value to send with them (for 429).
        :raises ValueError: for a status outside 400..599 or ``times`` < 1.
        """
        if not 400 <= status <= 599:
            raise ValueError(f"fail_next needs an error status (400..599), not {status}")
        _check_times(times)
        with self._lock:
            self._queue.extend(Failure(status, retry_after) for _ in range(times))

    def reset_next(self, times: int = 1) -> None:
        """Drop the next ``times`` requests before anything is applied (connection reset).

        :raises ValueError: for ``times`` < 1.
        """
        _check_times(times)
        with self._lock:
            self._queue.extend(Failure(reset=True) for _ in range(times))

    def timeout_after_write_next(self, times: int = 1) -> None:
        """Apply the next ``times`` changing requests, then time out instead of answering.

        :raises ValueError: for ``times`` < 1.
        """
        _check_times(times)
        with self._lock:
            self._timeouts += times

    def reset(self) -> None:
        """Clear every fault and switch latency and the quirk switches off."""
        with self._lock:
            self._queue.clear()
            self._timeouts = 0
            self.latency_s = 0.0
            self.validation_as_500 = False
            self.parent_number_for_persons = False
            self.timeout_hold_s = DEFAULT_TIMEOUT_HOLD_S

    def take_failure(self) -> Failure | None:
        """:returns: the next queued error answer or reset, if any (consumes it)."""
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def take_timeout(self) -> bool:
        """:returns: whether this applied request is to time out (consumes one timeout)."""
        with self._lock:
            if self._timeouts:
                self._timeouts -= 1
                return True
            return False


def _check_times(times: int) -> None:
    if times < 1:
        raise ValueError(f"times must be at least 1, not {times}")
