"""Shared state of several HTTP instances on Redis (``SEVDESK_HTTP_STATE_URL``).

The stores of grants, approvals, transfers, sessions, nonces, locks, rate limits and the pacer
keep their state in one process by default. With a Redis URL configured, each of them has a
second implementation built on :class:`~sevdesk_mcp.shared.redis.SharedState`, so any instance
behind a load balancer can answer any request. This part holds only what those implementations
share: the connection (the one module that imports the optional ``redis`` package), key names
and sealing. It imports nothing of the package but the error tree and the JSON types.

Rules every implementation follows:

- every key is under the namespace and expires (:class:`~sevdesk_mcp.shared.keys.Keys`);
  secret ids (approval ids, session ids, nonces, upload ids) appear in key names only as a
  SHA-256 digest;
- every value that holds a secret or a file is sealed (:class:`~sevdesk_mcp.shared.seal.Seal`,
  AES-256-GCM under a key derived from ``SEVDESK_HTTP_SECRET``, the key name as associated
  data, so a value moved to another key does not open);
- single use and compare-and-set are one Lua script or one atomic command, never a read
  followed by a write;
- a command is never retried after a timeout or a lost connection (it may have been applied);
  every Redis failure leaves as :class:`~sevdesk_mcp.errors.StateUnavailableError`.
"""
