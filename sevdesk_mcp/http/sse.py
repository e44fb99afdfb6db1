"""Server-sent events as the MCP routes write them."""

from __future__ import annotations

from typing import Final

SSE_TYPE: Final = "text/event-stream"
SSE_HEADERS: Final = [("content-type", SSE_TYPE), ("x-accel-buffering", "no")]


def sse_event(data: bytes, event_id: int | None = None) -> bytes:
    """:returns: one ``message`` event carrying ``data`` (a JSON-RPC message, encoded), with an
    ``id`` line when the stream can be resumed (``Last-Event-ID``)."""
    head = b"event: message\n" if event_id is None else b"id: %d\nevent: message\n" % event_id
    return head + b"data: " + data + b"\n\n"
