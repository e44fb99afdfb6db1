"""Every limit and deadline of the HTTP server, with its unit in the name.

They are fixed for operators (``docs/remote.md`` lists them) except the per-client ones and the
number of connections, which ``settings.limits_for`` takes from the environment; tests build
smaller :class:`Limits` to reach each rule quickly.
"""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.mcp.shutdown import SHUTDOWN_GRACE_S

KIB: Final = 1024
MIB: Final = 1024 * KIB

MAX_CONNECTIONS: Final = 256  # the default; SEVDESK_HTTP_MAX_CONNECTIONS raises it
MAX_CONNECTIONS_LIMIT: Final = 16_384
# An open GET stream of a 2025-era session waits, it does not work: it holds a connection and
# one of the stream places (at most half the connections), not a place among the requests in
# flight, so a few hundred idle streams never crowd out the requests that do work.
STREAMS_SHARE: Final = 2
# One address may hold an eighth of the connections, so at least eight addresses are needed to
# fill the server (threat H08). 32 is twice the per-client in-flight cap: a client can run its 16
# requests and still keep as many idle keep-alive connections (browsers open 6 per host, SDK
# clients a handful). Behind a reverse proxy every connection comes from the proxy's address, so
# with trusted proxies the cap defaults to MAX_CONNECTIONS (``settings.limits_for``).
MAX_CONNECTIONS_PER_CLIENT: Final = 32
MAX_HEADER_BYTES: Final = 16 * KIB
MAX_HEADER_COUNT: Final = 100
MAX_TARGET_BYTES: Final = 8 * KIB
MCP_MAX_BODY_BYTES: Final = 1 * MIB
HEADER_DEADLINE_S: Final = 15.0
RECEIVE_DEADLINE_S: Final = 30.0
KEEPALIVE_IDLE_S: Final = 65.0
MAX_REQUESTS_PER_CONNECTION: Final = 1000
REQUEST_DEADLINE_S: Final = 120.0
RATE_PER_S: Final = 10.0
RATE_BURST: Final = 60
MAX_INFLIGHT_PER_CLIENT: Final = 16
MAX_INFLIGHT: Final = 128
MAX_TRACKED_CLIENTS: Final = 10_000
LINGER_S: Final = 2.0
LINGER_IDLE_S: Final = 0.5
READ_CHUNK_BYTES: Final = 64 * KIB


class Limits(msgspec.Struct, frozen=True):
    """The limits one server applies.

    :param max_connections: connections served at once; one more is closed at once.
    :param max_connections_per_client: connections one client address (IPv6: one /64, as the
        socket peer shows it) is served at once; one more is closed at once.
    :param header_deadline_s: time from a request's first byte to the end of its headers.
    :param receive_deadline_s: time from a request's first byte to the end of its body.
    :param keepalive_idle_s: how long an idle connection waits for its next request.
    :param request_deadline_s: time a handler has to produce its whole response.
    :param max_streams: long-lived answers (a session's ``GET`` stream) open at once; they do
        not count among the requests in flight.
    :param rate_per_s: tokens a client regains per second; ``rate_burst`` is the bucket size.
    :param linger_s: how long a connection the server closes keeps draining what the client
        still sends (so the kernel does not reset it before the client read the answer);
        draining also stops when nothing arrived for ``linger_idle_s``.
    """

    max_connections: int = MAX_CONNECTIONS
    max_connections_per_client: int = MAX_CONNECTIONS_PER_CLIENT
    max_header_bytes: int = MAX_HEADER_BYTES
    max_header_count: int = MAX_HEADER_COUNT
    max_target_bytes: int = MAX_TARGET_BYTES
    mcp_max_body_bytes: int = MCP_MAX_BODY_BYTES
    header_deadline_s: float = HEADER_DEADLINE_S
    receive_deadline_s: float = RECEIVE_DEADLINE_S
    keepalive_idle_s: float = KEEPALIVE_IDLE_S
    max_requests_per_connection: int = MAX_REQUESTS_PER_CONNECTION
    request_deadline_s: float = REQUEST_DEADLINE_S
    shutdown_grace_s: float = SHUTDOWN_GRACE_S
    rate_per_s: float = RATE_PER_S
    rate_burst: int = RATE_BURST
    max_inflight_per_client: int = MAX_INFLIGHT_PER_CLIENT
    max_inflight: int = MAX_INFLIGHT
    max_streams: int = MAX_CONNECTIONS // STREAMS_SHARE
    max_tracked_clients: int = MAX_TRACKED_CLIENTS
    linger_s: float = LINGER_S
    linger_idle_s: float = LINGER_IDLE_S
