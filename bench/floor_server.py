"""The stack's floor: a bare anyio + h11 + msgspec keep-alive server, for the benchmarks only.

Run by ``http_bench.py`` (``python bench/floor_server.py PORT``); never imported by tests or the
package. It does what any server on this stack must do for one MCP request and nothing else:
parse the request with h11, read the whole body, decode it as JSON with msgspec, and answer the
request's ``id`` with a fixed result of the shape and size of our ``sevdesk_server_status``
answer, on a keep-alive connection. No routing, limits, deadlines, authentication or log line: the
difference between this server and ours is what our own code costs per request.
"""

from __future__ import annotations

import sys
from typing import Any, Final

import anyio
import anyio.abc
import h11
import msgspec

READ_CHUNK_BYTES: Final = 65536
TOOLS: Final = [
    f"sevdesk_{name}"
    for name in (
        *("server_status", "account_info", "reference_data", "search_contacts", "get_contact"),
        *("search_documents", "get_document", "document_pdf", "search_vouchers", "get_voucher"),
        *("search_parts", "list_bank_accounts", "search_transactions", "open_items"),
        *("cash_position", "changed_since"),
    )
]
STATUS: Final = {
    "version": "0.1.0",
    "tiers": ["read"],
    "read_only": False,
    "dry_run": False,
    "tools": TOOLS,
    "protocol_version": "2026-07-28",
    "notes": ["Only reading is enabled; the user can enable writes with SEVDESK_ALLOW."],
}
RESULT: Final = {  # the shape and size of our sevdesk_server_status answer (2026-07-28)
    "content": [{"type": "text", "text": msgspec.json.encode(STATUS).decode()}],
    "structuredContent": STATUS,
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "floor", "version": "0.1.0"}},
    "resultType": "complete",
}
_decoder: Final = msgspec.json.Decoder()
_encoder: Final = msgspec.json.Encoder()


def answer(body: bytes) -> bytes:
    """:returns: the JSON-RPC answer to ``body``: its ``id`` and the fixed result."""
    message: Any = _decoder.decode(body)
    request_id = message.get("id") if isinstance(message, dict) else None
    return _encoder.encode({"jsonrpc": "2.0", "id": request_id, "result": RESULT})


async def serve_connection(stream: anyio.abc.SocketStream) -> None:
    """Answer every request of one keep-alive connection, until the client closes it."""
    conn = h11.Connection(h11.SERVER)
    body = bytearray()
    async with stream:
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                try:
                    conn.receive_data(await stream.receive(READ_CHUNK_BYTES))
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    return
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                await stream.send(_response(conn, bytes(body)))
                body.clear()
                conn.start_next_cycle()
            elif isinstance(event, h11.ConnectionClosed):
                return


def _response(conn: h11.Connection, body: bytes) -> bytes:
    data = answer(body)
    head = h11.Response(
        status_code=200,
        headers=[("content-type", "application/json"), ("content-length", str(len(data)))],
    )
    return b"".join(
        conn.send(event) or b"" for event in (head, h11.Data(data=data), h11.EndOfMessage())
    )


async def main(port: int) -> None:
    """Serve on ``127.0.0.1:port`` until killed."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)
    await listener.serve(serve_connection)


if __name__ == "__main__":
    anyio.run(main, int(sys.argv[1]))
