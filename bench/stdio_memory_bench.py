"""Memory of the stdio server without demo books (issue 38): against sevDesk over HTTP (the fake
with the demo books in another process), as a user's own account runs.

Run by hand (never imported by tests)::

    python bench/stdio_memory_bench.py          # 3 runs, 200 calls each
    BENCH_RUNS=5 BENCH_CALLS=500 python bench/stdio_memory_bench.py
    BENCH_PYTHON=/path/to/venv/bin/python python bench/stdio_memory_bench.py

``BENCH_PYTHON`` runs the server under another interpreter: a venv with only the runtime
dependencies (``pip install .``) is what a user runs. The development venv holds the test
dependencies, and httpcore imports trio when it is installed (about 4 MiB more).

Per run: ``fake-sevdesk`` on a free loopback port; ``python -m sevdesk_mcp --stdio`` with the
fake's demo token and ``SEVDESK_API_URL`` pointing at it (pacing lifted); ``initialize``, then
VmRSS (after start: the token checked, the account's name read, the tool index loaded); then
``BENCH_CALLS`` calls alternating the floor tool and ``sevdesk_search_contacts``, then VmRSS and
VmHWM (the peak). The package's bytecode is compiled first, as installing a wheel does.
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_bench import free_port, wait_ready
from stdio_bench import INIT, ROOT, Session

from sevdesk_mcp.fake.token import DEMO_TOKEN

RUNS = int(os.environ.get("BENCH_RUNS", "3"))
PYTHON = os.environ.get("BENCH_PYTHON") or sys.executable
CALLS = int(os.environ.get("BENCH_CALLS", "200"))
MIB_KIB = 1024


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise KeyError(field)


def one_run() -> tuple[float, float, float]:
    """:returns: VmRSS after start, VmRSS and VmHWM after the calls, in MiB."""
    port = free_port()
    fake = subprocess.Popen(
        [sys.executable, "-m", "sevdesk_mcp", "fake-sevdesk", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_ready(port)
        os.environ["SEVDESK_API_TOKEN"] = DEMO_TOKEN
        os.environ["SEVDESK_API_URL"] = f"http://127.0.0.1:{port}/api/v1"
        session = Session([PYTHON, "-m", "sevdesk_mcp", "--stdio"])
        session.send(INIT)
        session.answer(0)
        session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        after_start = _status(session.proc.pid, "VmRSS")
        for n in range(CALLS):
            if n % 2:
                session.call("sevdesk_search_contacts", {"query": "Brandt"})
            else:
                session.call("sevdesk_server_status", {})
        figures = (
            after_start / MIB_KIB,
            _status(session.proc.pid, "VmRSS") / MIB_KIB,
            _status(session.proc.pid, "VmHWM") / MIB_KIB,
        )
        session.close()
        return figures
    finally:
        fake.kill()
        fake.wait()


def main() -> int:
    compileall.compile_dir(ROOT / "sevdesk_mcp", quiet=1)
    runs = [one_run() for _ in range(RUNS)]
    for name, index in (("after start", 0), ("after the calls", 1), ("peak (VmHWM)", 2)):
        values = [r[index] for r in runs]
        print(
            f"{name:16} {statistics.median(values):6.1f} MiB  "
            f"[{min(values):.1f} .. {max(values):.1f}]"
        )
    print(f"{RUNS} runs, {CALLS} calls each, --stdio against the fake over HTTP")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
