"""The one error boundary at sevDesk (httpcore's ``map_exceptions``): every failure of a call
leaves the client as an :class:`~sevdesk_mcp.errors.UpstreamError` that says what happened and
what to do, and a write that may have reached sevDesk is never reported as "try later"."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import msgspec

from sevdesk_mcp.errors import (
    MalformedResponseError,
    OutcomeUnknownError,
    UnavailableError,
    UpstreamError,
    UpstreamTimeoutError,
)

if TYPE_CHECKING:
    import httpx


class Call(msgspec.Struct):
    """One call as the error boundary sees it: what it asks, and how far it got."""

    method: str
    path: str
    write: bool
    sent: bool = False
    status: int | None = None
    attempts: int = 0
    network_failures: int = 0


@contextlib.contextmanager
def map_exceptions(call: Call, budget_s: float) -> Iterator[None]:
    """The one error boundary at sevDesk, as httpcore's ``map_exceptions``: every failure of
    ``call`` leaves as an :class:`~sevdesk_mcp.errors.UpstreamError`.

    Before sending, a failure is unavailable (nothing changed). Once a write may have reached
    sevDesk, anything but a definite answer (a network error, the budget, a 5xx, a body that
    cannot be decoded or read) is an unknown outcome. A read's network or decoding failure,
    after the retries of :meth:`SevdeskClient._read`, is unavailable or malformed.

    :raises UpstreamError: the classified failure.
    """
    import httpx  # noqa: PLC0415 - httpx is imported with the first request, not at start-up

    try:
        yield
    except httpx.InvalidURL:  # built before sending: never reached sevDesk
        raise UnavailableError(
            "The request to sevDesk could not be built (an invalid URL); nothing was sent. "
            "Check SEVDESK_API_URL."
        ) from None
    except (httpx.HTTPError, httpx.StreamError, TimeoutError) as exc:
        raise _translated(exc, call, budget_s) from None
    except (UnavailableError, MalformedResponseError):
        # a 5xx or a garbled answer after a write reached sevDesk says nothing about whether
        # it was applied (Q33): unknown, never "try later"
        if call.write and call.sent:
            raise _unknown(call) from None
        raise


def _translated(
    exc: httpx.HTTPError | httpx.StreamError | TimeoutError, call: Call, budget_s: float
) -> UpstreamError:
    """:returns: our error for an httpx error or the end of the budget (never their text)."""
    import httpx  # noqa: PLC0415 - imported by the time a request failed

    not_sent = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
    if isinstance(exc, not_sent) and call.write:
        return UnavailableError(
            "sevDesk could not be reached; nothing was sent or changed. Try again later."
        )
    if call.write and call.sent:
        return _unknown(call)
    if isinstance(exc, TimeoutError) and call.write:  # still waiting for its turn to be sent
        return UnavailableError(
            f"sevDesk could not be asked within {budget_s:g} s; nothing was sent or changed. "
            "Try again later."
        )
    if isinstance(exc, TimeoutError):
        return UpstreamTimeoutError(
            f"sevDesk did not answer within {budget_s:g} s; try again later."
        )
    if isinstance(exc, httpx.DecodingError):
        return MalformedResponseError(
            "sevDesk's answer arrived garbled: its body could not be decoded (a broken or cut-off "
            "compressed stream). Try again, and report it if it persists."
        )
    return UnavailableError("sevDesk could not be reached (network error); try again later.")


def _unknown(call: Call) -> OutcomeUnknownError:
    what = f"sevDesk answered HTTP {call.status} without a usable result"
    if call.status is None:
        what = "no answer arrived"
    return OutcomeUnknownError(
        f"{call.method} {call.path} was sent to sevDesk, but {what}: it may or may not have been "
        "applied. It was not retried. Check the record in sevDesk (or read it again) before "
        "trying again."
    )
