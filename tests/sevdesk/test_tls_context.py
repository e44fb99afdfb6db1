"""Every sevDesk client of the process verifies certificates with one TLS context: OAuth mode
keeps a client per signed-in account, and a context of its own costs each about 1 MiB and
16 ms to load the authorities."""

from __future__ import annotations

import ssl

from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient, tls_context
from sevdesk_mcp.sevdesk.gate import WriteGate

READ = WriteGate(tiers=frozenset({Tier.READ}), read_only=True)
URL = "https://my.sevdesk.de/api/v1"


def _context_of(client: SevdeskClient) -> ssl.SSLContext:
    pool = client._pool.get()._transport._pool  # type: ignore[attr-defined]
    context: ssl.SSLContext = pool._ssl_context
    return context


def test_clients_share_one_context_that_verifies_sevdesk() -> None:
    tokens = [Secret(f"{n:032x}") for n in range(1, 4)]
    clients = [SevdeskClient(base_url=URL, token=t, gate=READ) for t in tokens]
    assert all(_context_of(c) is tls_context() for c in clients)
    context = tls_context()
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
    assert context.get_ca_certs() or context.cert_store_stats()["x509_ca"] > 0


def test_a_proxied_client_verifies_with_the_same_context() -> None:
    client = SevdeskClient(
        base_url=URL, token=Secret("f" * 32), gate=READ, proxy="http://127.0.0.1:3128"
    )
    proxied = next(t for t in client._pool.get()._mounts.values() if t is not None)
    assert proxied._pool._ssl_context is tls_context()  # type: ignore[attr-defined]
