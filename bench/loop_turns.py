"""Event-loop turns and callbacks per HTTP request, for the benchmarks only.

Run by hand: ``python bench/loop_turns.py ours|floor`` (``PYTHONPATH`` chooses the checkout whose
``sevdesk_mcp`` runs). Never imported by tests. The server runs in this process with asyncio's
``_run_once`` and ``Handle._run`` counted; a load generator in a subprocess sends floor-tool
requests from one client for 3 s. Every turn of the loop is an ``epoll_wait`` and a pass over
the ready callbacks, so fewer turns per request is less work that no profile names.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from http_bench import FLOOR_TOOL, call_request, free_port, server_env

BENCH = Path(__file__).resolve().parent
COUNTS = {"turns": 0, "callbacks": 0}


def _count() -> None:
    loop_class: Any = asyncio.base_events.BaseEventLoop
    turn, callback = loop_class._run_once, asyncio.events.Handle._run

    def counted_turn(self: Any) -> None:
        COUNTS["turns"] += 1
        turn(self)

    def counted_callback(self: asyncio.Handle) -> None:
        COUNTS["callbacks"] += 1
        callback(self)

    loop_class._run_once = counted_turn
    asyncio.events.Handle._run = counted_callback  # type: ignore[method-assign]


def _load(port: int, seconds: float) -> int:
    script = (
        f"import asyncio, sys; sys.path.insert(0, {str(BENCH)!r}); "
        "from loadgen import closed_loop; "
        f"print(len(asyncio.run(closed_loop({port}, {call_request(port, FLOOR_TOOL)!r}, 1, "
        f"{seconds})).latencies_s))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return int(done.stdout)


def _client(name: str, port: int) -> None:
    time.sleep(3.0)  # the server starts
    _load(port, 1.0)  # warm up (and build the books)
    before = dict(COUNTS)
    requests = _load(port, 3.0)
    turns = (COUNTS["turns"] - before["turns"]) / requests
    callbacks = (COUNTS["callbacks"] - before["callbacks"]) / requests
    print(f"{name}: {requests} requests, {turns:.2f} loop turns and {callbacks:.2f} callbacks each")
    os._exit(0)


def main() -> None:
    name = sys.argv[1]
    port = free_port()
    os.environ.update(server_env(port))
    _count()
    threading.Thread(target=_client, args=(name, port), daemon=True).start()
    if name == "floor":
        import anyio
        import floor_server

        anyio.run(floor_server.main, port)
    else:
        from sevdesk_mcp.cli import main as serve

        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the access log, for the run
        serve(["--http", "--demo"])


if __name__ == "__main__":
    main()
