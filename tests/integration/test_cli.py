"""The command line as a process: start-up refusals, a clean stdout, prompt exit on EOF."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from sevdesk_mcp.fake import DEMO_TOKEN, build_demo, serve_fake

ROOT = Path(__file__).resolve().parents[2]


def clean_environment() -> dict[str, str]:
    """:returns: this process's environment without any SEVDESK_ setting."""
    return {k: v for k, v in os.environ.items() if not k.startswith("SEVDESK_")}


WRONG_TOKEN = "0" * 32
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
        timeout=60,  # a hang guard only
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


def test_without_a_token_start_up_stops_and_suggests_the_demo() -> None:
    proc = run([])
    assert proc.returncode == 2
    assert "SEVDESK_API_TOKEN is not set" in proc.stderr and "--demo" in proc.stderr
    assert proc.stdout == ""


def test_a_token_sevdesk_refuses_stops_start_up_with_one_line() -> None:
    with serve_fake(build_demo()) as base_url:
        proc = run([], {"SEVDESK_API_URL": base_url, "SEVDESK_API_TOKEN": WRONG_TOKEN})
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "refused the API token (HTTP 401)" in lines[0]
    assert WRONG_TOKEN not in proc.stderr


def test_an_unreachable_sevdesk_is_a_warning_and_the_server_serves() -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    proc = run(
        [],
        {"SEVDESK_API_URL": "http://127.0.0.1:9/api/v1", "SEVDESK_API_TOKEN": WRONG_TOKEN},
        stdin=json.dumps(request) + "\n",
    )
    assert proc.returncode == 0
    assert "could not check the sevDesk token" in proc.stderr
    assert json.loads(proc.stdout)["id"] == 1


def test_a_valid_token_is_checked_and_the_server_serves_the_account() -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "sevdesk_account_info", "_meta": META},
    }
    with serve_fake(build_demo()) as base_url:
        proc = run(
            [],
            {"SEVDESK_API_URL": base_url, "SEVDESK_API_TOKEN": DEMO_TOKEN},
            stdin=json.dumps(call) + "\n",
        )
    result = json.loads(proc.stdout)["result"]
    assert result["structuredContent"]["company"] == "⟦Holzwerk Sonnenberg GmbH⟧"
    assert result["structuredContent"]["demo"] is False
    assert DEMO_TOKEN not in proc.stderr + proc.stdout


def test_demo_mode_prints_its_banner_on_stderr_only() -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "sevdesk_account_info", "_meta": META},
    }
    proc = run(["--demo"], stdin=json.dumps(call) + "\n")
    assert "DEMO MODE" in proc.stderr and "nothing here is real" in proc.stderr
    assert json.loads(proc.stdout)["result"]["structuredContent"]["demo"] is True


def test_fake_sevdesk_refuses_to_listen_beyond_loopback() -> None:
    proc = run(["fake-sevdesk", "--host", "0.0.0.0", "--port", "0"])
    assert proc.returncode == 2
    assert "loopback" in proc.stderr


def test_fake_sevdesk_serves_the_demo_books_on_loopback() -> None:
    command = [sys.executable, "-m", "sevdesk_mcp", "fake-sevdesk", "--port", "0"]
    env = {**clean_environment(), "PYTHONPATH": str(ROOT)}
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT) as proc:
        try:
            assert proc.stderr is not None
            url = proc.stderr.readline().split("serving at ")[1].strip()
            answer = httpx.get(
                f"{url}/Tools/bookkeepingSystemVersion",
                headers={"Authorization": DEMO_TOKEN},
                timeout=60,  # a hang guard only
            )
        finally:
            proc.terminate()
    assert url.startswith("http://127.0.0.1:")
    assert answer.json() == {"objects": {"version": "2.0"}}


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
    proc = run(["--stdio", "--demo"], stdin="".join(json.dumps(r) + "\n" for r in requests))
    assert proc.returncode == 0
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert sorted(a["id"] for a in answers) == [1, 2]


def test_stray_prints_go_to_stderr_and_stdout_carries_frames_only() -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    proc = run([], stdin=json.dumps(request) + "\n", module="tests.interop.fixture_server")
    assert "must land on stderr" in proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["id"] == 1


def test_the_demo_session_of_the_readme_runs_and_shows_real_data() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "demo_session.py")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**clean_environment(), "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "(sevdesk_finalize_document, tier commit)" in proc.stdout  # the approval step
    assert "Holzwerk Sonnenberg GmbH" in proc.stdout
    assert "claude mcp add sevdesk" in proc.stdout
    assert "DEMO MODE" in proc.stderr
