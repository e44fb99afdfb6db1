"""The command line as a process: start-up refusals, a clean stdout, prompt exit on EOF."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def clean_environment() -> dict[str, str]:
    """:returns: this process's environment without any SEVDESK_ setting."""
    return {k: v for k, v in os.environ.items() if not k.startswith("SEVDESK_")}


META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def run(
    args: list[str], env: dict[str, str] | None = None, stdin: str = "", module: str = "sevdesk_mcp"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=20,
        cwd=ROOT,
        env={**clean_environment(), "PYTHONPATH": str(ROOT), **(env or {})},
        check=False,
    )


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"SEVDESK_ALLOW": "everything"}, "SEVDESK_ALLOW"),
        ({"SEVDESK_READ_ONLY": "perhaps"}, "SEVDESK_READ_ONLY"),
        ({"SEVDESK_TOOLSETS": "nope"}, "SEVDESK_TOOLSETS"),
    ],
)
def test_a_bad_setting_stops_start_up_with_one_line_naming_the_variable(
    env: dict[str, str], variable: str
) -> None:
    proc = run([], env)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and variable in lines[0] and "Traceback" not in proc.stderr


def test_unknown_arguments_are_a_usage_error() -> None:
    proc = run(["--bogus"])
    assert proc.returncode == 2 and "usage:" in proc.stderr


def test_version() -> None:
    proc = run(["--version"])
    assert proc.returncode == 0 and proc.stdout.startswith("mcp-server-sevdesk ")


def test_stdin_eof_ends_the_server_promptly_with_every_answer_written() -> None:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "sevdesk_server_status", "_meta": META},
        },
    ]
    proc = run(["--stdio"], stdin="".join(json.dumps(r) + "\n" for r in requests))
    assert proc.returncode == 0
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert sorted(a["id"] for a in answers) == [1, 2]


def test_stray_prints_go_to_stderr_and_stdout_carries_frames_only() -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    proc = run([], stdin=json.dumps(request) + "\n", module="tests.interop.fixture_server")
    assert "must land on stderr" in proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["id"] == 1
