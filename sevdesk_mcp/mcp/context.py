"""What a handler sees of the request it serves, and what it may send back on the way."""

from __future__ import annotations

from typing import Protocol

import msgspec

from sevdesk_mcp.errors import PeerRequestError as PeerRequestError  # noqa: PLC0414 - transports
from sevdesk_mcp.mcp.types import (
    LOG_LEVELS,
    ElicitResponse,
    Era,
    JsonObject,
    JsonValue,
    RequestId,
)


class Peer(Protocol):
    """The connection back to the client, as far as the transport offers one."""

    @property
    def can_request(self) -> bool:
        """Whether server-to-client requests are possible (stdio: yes; stateless HTTP: no)."""
        ...

    async def notify(self, method: str, params: JsonObject) -> None:
        """Send a notification related to the current request."""
        ...

    async def request(self, method: str, params: JsonObject, timeout_s: float) -> JsonObject:
        """Send a request to the client and wait for its result.

        :raises PeerRequestError: on an error answer, a closed connection or the timeout.
        """
        ...


class Subscriptions(Protocol):
    """The resources a 2025-era client subscribed to (HTTP sessions): their updates reach it as
    ``notifications/resources/updated``."""

    def subscribe(self, uri: str) -> None:
        """Subscribe to ``uri``.

        :raises ProtocolError: -32602 when the connection holds as many subscriptions as it may.
        """
        ...

    def unsubscribe(self, uri: str) -> None:
        """End the subscription to ``uri``; nothing happens if there is none."""
        ...


class RequestContext(msgspec.Struct, frozen=True):
    """One request, as seen by a provider (tools, prompts, resources)."""

    era: Era
    protocol_version: str
    client_capabilities: JsonObject
    principal: str
    request_id: RequestId
    peer: Peer
    progress_token: int | str | None = None
    log_level: str | None = None
    input_responses: dict[str, ElicitResponse] | None = None
    request_state: JsonValue = None
    _progress: list[float] = msgspec.field(default_factory=list)
    input_results: dict[str, JsonObject] | None = None

    def with_input(
        self,
        responses: dict[str, ElicitResponse] | None,
        state: JsonValue,
        results: dict[str, JsonObject] | None = None,
    ) -> RequestContext:
        """:returns: the same context carrying the answers of an input round.

        :param results: the raw answers to sampling and roots requests, by key.
        """
        return msgspec.structs.replace(
            self, input_responses=responses, request_state=state, input_results=results
        )

    def declares(self, capability: str) -> bool:
        """:returns: whether the client declared ``capability`` (``sampling``, ``roots``)."""
        return isinstance(self.client_capabilities.get(capability), dict)

    def can_elicit_form(self) -> bool:
        """:returns: whether the client declared form elicitation for this request."""
        elicitation = self.client_capabilities.get("elicitation")
        if not isinstance(elicitation, dict):
            return False
        return "form" in elicitation or "url" not in elicitation

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send ``notifications/progress`` if the request asked for it; values must increase."""
        if self.progress_token is None or (self._progress and progress <= self._progress[-1]):
            return
        self._progress.append(progress)
        params: JsonObject = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self.peer.notify("notifications/progress", params)

    async def log(self, level: str, data: JsonValue) -> None:
        """Send ``notifications/message`` if the client asked for this level or a lower one."""
        if self.log_level is None or LOG_LEVELS.index(level) < LOG_LEVELS.index(self.log_level):
            return
        await self.peer.notify("notifications/message", {"level": level, "data": data})
