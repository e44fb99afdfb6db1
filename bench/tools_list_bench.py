"""The first ``tools/list``: how soon it is answered after start-up, and how big it is.

Run by hand: ``python bench/tools_list_bench.py``. Never imported by tests.

- in-process, cold: a fresh interpreter per run imports the server, starts the event loop,
  builds the server for all tiers (read, write, commit, external), which builds the tools'
  schemas, and answers one 2026-07-28 ``tools/list`` over in-memory streams; each step is
  timed on its own, and "build + list" is the start-up work up to the first answer;
- stdio, cold: process start (``python -m sevdesk_mcp --demo --stdio``, all tiers) until the
  answer to a ``tools/list`` written at once arrives, next to a bare interpreter's start;
- size: the bytes of the encoded 2026-07-28 answer (one line, without its newline) per tier
  configuration, and what it would be without output schemas.

``BENCH_RUNS`` sets the number of cold runs (default 7); medians are printed.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RUNS = int(os.environ.get("BENCH_RUNS", "7"))
ALL_TIERS = "read,write,commit,external"
CONFIGS = {"read": "read", "read+write": "read,write", "all tiers": ALL_TIERS}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}


def clean_env(allow: str) -> dict[str, str]:
    """:returns: this process's environment without SEVDESK_ settings, plus ``allow``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEVDESK_")}
    return {**env, "SEVDESK_ALLOW": allow, "PYTHONPATH": str(ROOT)}


def child() -> None:
    """One cold in-process run (``--child ALLOW``): prints the step times and sizes as JSON."""
    t0 = time.perf_counter()
    import anyio
    import msgspec

    from sevdesk_mcp.accounts.context import AccountContext
    from sevdesk_mcp.config import load_config
    from sevdesk_mcp.mcp.dispatcher import Dispatcher
    from sevdesk_mcp.mcp.stdio import StdioServer
    from sevdesk_mcp.server import ServerFactory

    t1 = time.perf_counter()
    answers: list[bytes] = []
    times: list[float] = []

    async def start_and_list() -> None:  # the event loop runs, as in the server, before timing
        times.append(time.perf_counter())
        config = load_config({"SEVDESK_ALLOW": sys.argv[2]})
        app = ServerFactory(config).build(AccountContext(config=config))
        times.append(time.perf_counter())
        lines = [json.dumps(LIST).encode() + b"\n", b""]

        async def read() -> bytes:
            return lines.pop(0)

        async def write(data: bytes) -> None:
            answers.append(data)
            times.append(time.perf_counter())

        await StdioServer(Dispatcher(app), read, write).serve()

    anyio.run(start_and_list)
    t2, t3, t4 = times
    frame = json.loads(answers[0])
    tools = frame["result"]["tools"]
    frame["result"]["tools"] = [{k: v for k, v in t.items() if k != "outputSchema"} for t in tools]
    figures = {
        "import_ms": (t1 - t0) * 1000,
        "loop_ms": (t2 - t1) * 1000,
        "build_ms": (t3 - t2) * 1000,
        "first_list_ms": (t4 - t3) * 1000,
        "bytes": len(answers[0].rstrip(b"\n")),
        "bytes_without_output_schemas": len(msgspec.json.encode(frame)),
        "tools": len(tools),
    }
    print(json.dumps(figures))


def in_process(allow: str) -> dict[str, Any]:
    """:returns: the figures of one cold in-process run for ``allow``."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", allow],
        env=clean_env(allow),
        capture_output=True,
        check=True,
        cwd=ROOT,
    )
    figures: dict[str, Any] = json.loads(out.stdout)
    return figures


def stdio_cold(command: list[str], request: bytes | None) -> float:
    """:returns: seconds from process start until its first line (or its exit)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=clean_env(ALL_TIERS),
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    if request is not None:
        proc.stdin.write(request)
        proc.stdin.flush()
        proc.stdout.readline()
    proc.stdin.close()
    if request is None:
        proc.wait()
    elapsed = time.perf_counter() - start
    proc.wait(timeout=30)
    return elapsed


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values):7.1f} ms"


def main() -> None:
    print(f"cold runs: {RUNS} (medians)\n")
    runs = [in_process(ALL_TIERS) for _ in range(RUNS)]
    print("in-process, all tiers:")
    for key in ("import_ms", "loop_ms", "build_ms", "first_list_ms"):
        print(f"  {key:<16}{median_ms([r[key] for r in runs])}")
    work = [r["build_ms"] + r["first_list_ms"] for r in runs]
    print(f"  {'build + list':<16}{median_ms(work)}  (start-up work to the first answer)")
    request = json.dumps(LIST).encode() + b"\n"
    server = [sys.executable, "-m", "sevdesk_mcp", "--demo", "--stdio"]
    floor = [stdio_cold([sys.executable, "-c", "pass"], None) * 1000 for _ in range(RUNS)]
    listed = [stdio_cold(server, request) * 1000 for _ in range(RUNS)]
    print("\nstdio, cold start to the tools/list answer, all tiers:")
    print(f"  {'bare python':<16}{median_ms(floor)}")
    print(f"  {'server':<16}{median_ms(listed)}")
    print("\nsize of the 2026-07-28 tools/list answer:")
    for name, allow in CONFIGS.items():
        figures = in_process(allow)
        print(
            f"  {name:<12}{figures['tools']:>3} tools {figures['bytes']:>7} bytes"
            f"  ({figures['bytes_without_output_schemas']:>6} without output schemas)"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child()
    else:
        main()
