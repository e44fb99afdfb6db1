"""Start ``mcp-server-sevdesk`` over stdio and walk through a short session, printing each step.

Run it with ``make try``. It speaks the 2026-07-28 protocol first, then a 2025-era handshake,
exactly as a desktop client would, and prints what the server answers.
"""

from __future__ import annotations

import json
import subprocess
import sys

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "try-session", "version": "1"},
}
STEPS = [
    ("2026-07-28: server/discover", "server/discover", {"_meta": META}),
    ("2026-07-28: tools/list", "tools/list", {"_meta": META}),
    (
        "2026-07-28: tools/call sevdesk_server_status",
        "tools/call",
        {"name": "sevdesk_server_status", "arguments": {}, "_meta": META},
    ),
    (
        "2025-11-25: initialize",
        "initialize",
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    ),
    (
        "2025-11-25: tools/call with an unknown argument",
        "tools/call",
        {"name": "sevdesk_server_status", "arguments": {"everything": True}},
    ),
]


def main() -> int:
    """Run the session; :returns: the exit status."""
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        for i, (_, method, params) in enumerate(STEPS, start=1)
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "sevdesk_mcp", "--stdio"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    answers = {}
    for line in proc.stdout.splitlines():
        message = json.loads(line)
        answers[message.get("id")] = message
    for i, (title, _, _) in enumerate(STEPS, start=1):
        print(f"\n=== {title}")  # noqa: T201
        print(json.dumps(answers.get(i), indent=2, ensure_ascii=False)[:2500])  # noqa: T201
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
