"""Memory of idle 2025-era HTTP sessions (issue 17): ``python bench/session_bench.py [N]``.

Creates N sessions (default 10,000, the server's cap) in a :class:`MemorySessionStore`, each
with a completed handshake of a client that declared elicitation, sampling and roots, and
measures the memory they hold with tracemalloc (and the process's peak RSS). Goal: under 20 KiB
per idle session; 10,000 sessions within the server's memory goal plus 200 MiB.
"""

from __future__ import annotations

import gc
import resource
import sys
import tracemalloc

from sevdesk_mcp.http.sessions import MAX_SESSIONS, MemorySessionStore
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.mcp.envelope import Handshake

KIB = 1024
CAPABILITIES: dict[str, JsonObject] = {
    "elicitation": {"form": {}},
    "sampling": {},
    "roots": {"listChanged": True},
}


def main(count: int) -> None:
    """Print the memory per idle session and for ``count`` sessions."""
    store = MemorySessionStore(max_sessions=max(count, MAX_SESSIONS), per_principal=count)
    gc.collect()
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    for number in range(count):
        session = store.create_now(f"oauth:{number % 50}:grant-{number % 50}")
        session.handshake = Handshake("2025-11-25", {k: dict(v) for k, v in CAPABILITIES.items()})
    gc.collect()
    after, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    held = after - before
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / KIB
    print(f"sessions: {len(store)}")
    print(f"memory held: {held / KIB / KIB:.1f} MiB, {held / count / KIB:.2f} KiB per idle session")
    print(f"peak RSS of this process: {rss_mib:.0f} MiB")
    print("goal: < 20 KiB per idle session:", "met" if held / count < 20 * KIB else "NOT met")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else MAX_SESSIONS)
