"""Requests the server sent to the client, waiting for their answers: one routing for every
transport (stdio, and HTTP sessions, where the answer arrives in another POST).

- Each request gets an id of its own (``srv-1``, ``srv-2``, ...; ``srv-<instance>-1`` when
  several instances share an HTTP session), which cannot collide with the client's ids (those
  are the client's; ours are only ever answered).
- :meth:`PendingRequests.deliver` hands an answer to the call waiting for it and says whether
  one was waiting: an answer to a request that was never sent (or whose wait ended) is not one.
- A wait ends with the answer, the timeout, the end of the connection or session
  (:meth:`PendingRequests.close`), or the cancellation of the waiting call; the entry is removed
  in every case. The timeout is cut to the time the enclosing deadline leaves (less a margin),
  so a wait inside an HTTP request fails cleanly before the request's own deadline does.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Awaitable, Callable
from typing import Final

import anyio

from sevdesk_mcp.errors import PeerRequestError
from sevdesk_mcp.mcp.jsonrpc import Response
from sevdesk_mcp.mcp.types import JsonObject, RequestId

DEADLINE_MARGIN_S: Final = 5.0
ID_PREFIX: Final = "srv-"

Send = Callable[[JsonObject], Awaitable[None]]


class _Pending:
    """One request sent, waiting for its answer."""

    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.result: JsonObject | None = None
        self.error: str | None = None


class PendingRequests:
    """The requests one connection or session sent and still waits for.

    :param prefix: the prefix of the request ids (``srv-``; an instance of several serving one
        HTTP session adds its own name, so the ids of two instances never collide).
    """

    __slots__ = ("_ids", "_pending", "_prefix", "closed")

    def __init__(self, prefix: str = ID_PREFIX) -> None:
        self._prefix = prefix
        self._ids: itertools.count[int] | None = None  # made by the first request
        self._pending: dict[RequestId, _Pending] | None = None
        self.closed = False

    def __len__(self) -> int:
        return len(self._pending or ())

    async def request(
        self, send: Send, method: str, params: JsonObject, timeout_s: float
    ) -> JsonObject:
        """Send a request with ``send`` and wait for the answer.

        :raises PeerRequestError: on an error answer, the end of the connection or session,
            or the timeout.
        """
        if self.closed:
            raise PeerRequestError("The client connection is closed.")
        if self._ids is None or self._pending is None:
            self._ids, self._pending = itertools.count(1), {}
        request_id = f"{self._prefix}{next(self._ids)}"
        pending = self._pending[request_id] = _Pending()
        timeout_s = _bounded(timeout_s)
        try:
            await send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            with anyio.move_on_after(timeout_s):
                await pending.done.wait()
        finally:
            del self._pending[request_id]
        if not pending.done.is_set():
            raise PeerRequestError(f"The client did not answer within {timeout_s:g} seconds.")
        if pending.result is None:
            raise PeerRequestError(f"The client refused the request ({pending.error}).")
        return pending.result

    def deliver(self, response: Response) -> bool:
        """Hand a client's answer to the request waiting for it.

        :returns: whether a request was waiting for it (``False``: never sent, or the wait
            ended already).
        """
        pending = (self._pending or {}).get(response.id)
        if pending is None or pending.done.is_set():
            return False
        pending.result = response.result
        message = (response.error or {}).get("message")
        pending.error = message[:200] if isinstance(message, str) else "error"
        pending.done.set()
        return True

    def close(self, reason: str = "the connection closed") -> None:
        """Fail every waiting request, and every later one: no answer can arrive any more."""
        self.closed = True
        for pending in (self._pending or {}).values():
            pending.error = reason
            pending.done.set()


def _bounded(timeout_s: float) -> float:
    """:returns: ``timeout_s``, cut to what the enclosing deadline leaves (less a margin)."""
    deadline = anyio.current_effective_deadline()
    if math.isinf(deadline):
        return timeout_s
    return max(0.0, min(timeout_s, deadline - anyio.current_time() - DEADLINE_MARGIN_S))
