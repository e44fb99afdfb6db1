"""The command line of HTTP mode: start-up refusals, serving, health checks, secrets, SIGTERM."""

from __future__ import annotations

import json
import socket
import sys

import anyio
import httpx
import pytest

from sevdesk_mcp.fake import build_demo, serve_fake
from sevdesk_mcp.http.oauth.commands import healthcheck
from tests.http.helpers import HANG_GUARD_S, SECRET, modern_body, modern_headers, running
from tests.http.process import http_env, http_server
from tests.integration.test_cli import WRONG_TOKEN, run

BEARER = {"SEVDESK_HTTP_AUTH": "bearer", "SEVDESK_HTTP_SECRET": SECRET}


@pytest.mark.parametrize(
    ("args", "env", "variable"),
    [
        (["--http"], {}, "SEVDESK_HTTP_AUTH"),
        (["--http", "--demo"], {}, "SEVDESK_HTTP_AUTH"),
        (["--http", "--demo"], {"SEVDESK_HTTP_AUTH": "bearer"}, "SEVDESK_HTTP_SECRET"),
        (["--http", "--demo"], {**BEARER, "SEVDESK_HTTP_PORT": "x"}, "SEVDESK_HTTP_PORT"),
        (["--http", "--demo"], {**BEARER, "SEVDESK_HTTP_AUTH": "none"}, "SEVDESK_HTTP_AUTH"),
    ],
)
def test_http_refuses_to_start_without_authentication_or_with_a_bad_setting(
    args: list[str], env: dict[str, str], variable: str
) -> None:
    proc = run(args, env)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and variable in lines[0] and "Traceback" not in proc.stderr


def test_http_and_stdio_are_exclusive() -> None:
    proc = run(["--http", "--stdio"], BEARER)
    assert proc.returncode == 2 and "not allowed with argument" in proc.stderr


def test_http_without_a_token_suggests_the_demo() -> None:
    proc = run(["--http"], BEARER)
    assert proc.returncode == 2 and "SEVDESK_API_TOKEN is not set" in proc.stderr


def test_a_token_sevdesk_refuses_stops_http_start_up() -> None:
    with serve_fake(build_demo()) as base_url:
        proc = run(
            ["--http"], {**BEARER, "SEVDESK_API_URL": base_url, "SEVDESK_API_TOKEN": WRONG_TOKEN}
        )
    assert proc.returncode == 2 and "refused the API token (HTTP 401)" in proc.stderr
    assert WRONG_TOKEN not in proc.stderr and SECRET not in proc.stderr


def test_generate_secret_prints_a_fresh_url_safe_secret() -> None:
    first, second = run(["generate-secret"]), run(["generate-secret"])
    assert first.returncode == 0 and first.stderr == ""
    secret = first.stdout.strip()
    assert len(secret) == 43 and secret != second.stdout.strip()
    assert set(secret) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_healthcheck_without_a_server_is_1() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = run(["healthcheck"], {"SEVDESK_HTTP_PORT": str(port)})
    assert proc.returncode == 1 and "unhealthy" in proc.stderr


def test_healthcheck_with_a_bad_setting_is_1_not_2() -> None:
    proc = run(["healthcheck"], {"SEVDESK_HTTP_PORT": "nope"})
    assert proc.returncode == 1 and "SEVDESK_HTTP_PORT" in proc.stderr


@pytest.mark.anyio
async def test_healthcheck_reports_a_draining_server_as_unhealthy() -> None:
    async with running() as server:
        env = {"SEVDESK_HTTP_PORT": str(server.port)}
        healthy = await anyio.to_thread.run_sync(healthcheck, env)
        server.service.lifecycle.draining = True
        draining = await anyio.to_thread.run_sync(healthcheck, env)
    assert (healthy, draining) == (0, 1)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # subprocesses: one backend is enough


@pytest.mark.anyio
async def test_http_demo_serves_with_bearer_auth_and_stops_on_sigterm() -> None:
    async with http_server("--demo") as server:
        assert server.url == f"http://127.0.0.1:{server.port}/mcp"
        env = http_env(SEVDESK_HTTP_PORT=str(server.port))
        health = await anyio.run_process([*run_command(), "healthcheck"], env=env, check=False)
        async with httpx.AsyncClient(trust_env=False, timeout=HANG_GUARD_S) as client:
            body, headers = modern_body("tools/list"), modern_headers("tools/list")
            denied = await client.post(server.url, json=body, headers=headers)
            auth = {**headers, "authorization": f"Bearer {SECRET}"}
            listed = await client.post(server.url, json=body, headers=auth)
        status = await server.terminate()
    assert health.returncode == 0
    assert denied.status_code == 401 and listed.status_code == 200
    assert any(t["name"] == "sevdesk_search_contacts" for t in listed.json()["result"]["tools"])
    assert status == 0
    output = "\n".join(server.stderr)
    assert "DEMO MODE" in output and "shutting down" in output
    assert SECRET not in output and "Traceback" not in output
    access = [json.loads(line) for line in server.stderr if line.startswith("{")]
    assert [(r["path"], r["status"]) for r in access][-2:] == [("/mcp", 401), ("/mcp", 200)]


@pytest.mark.anyio
async def test_a_port_in_use_stops_start_up_with_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = http_env(SEVDESK_HTTP_PORT=str(taken.getsockname()[1]))
        proc = await anyio.run_process([*run_command(), "--http", "--demo"], env=env, check=False)
    assert proc.returncode == 2
    assert b"cannot listen on 127.0.0.1:" in proc.stderr


def run_command() -> list[str]:
    return [sys.executable, "-m", "sevdesk_mcp"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.anyio
async def test_port_flag_wins_over_the_setting_for_http_and_healthcheck() -> None:
    """Issue 14, point 3: ``--port`` with ``--http`` was silently ignored (8080 was announced)."""
    port = _free_port()
    async with http_server("--demo", "--port", str(port)) as server:  # the env says port 0
        assert server.url == f"http://127.0.0.1:{port}/mcp"
        env = http_env(SEVDESK_HTTP_PORT="1")  # the flag wins here too
        health = await anyio.run_process(
            [*run_command(), "healthcheck", "--port", str(port)], env=env, check=False
        )
    assert health.returncode == 0


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--port", "9000"], "--port mean nothing for stdio"),
        (["--stdio", "--host", "127.0.0.1"], "--host mean nothing for stdio"),
        (["generate-secret", "--port", "1"], "--port mean nothing for generate-secret"),
    ],
)
def test_listening_flags_are_refused_where_nothing_listens(args: list[str], named: str) -> None:
    proc = run(args)
    assert proc.returncode == 2 and named in proc.stderr and proc.stdout == ""
    assert "Use them with --http, healthcheck or fake-sevdesk." in proc.stderr


@pytest.mark.parametrize("port", ["70000", "-1", "x"])
def test_a_bad_port_flag_is_refused_with_its_range(port: str) -> None:
    proc = run(["--http", "--demo", "--port", port], BEARER)
    assert proc.returncode == 2 and "use a number from 0 to 65535" in proc.stderr


def test_the_help_names_the_http_default_port() -> None:
    from sevdesk_mcp import cli
    from sevdesk_mcp.http.settings import DEFAULT_PORT

    assert cli.DEFAULT_HTTP_PORT == DEFAULT_PORT
    help_text = " ".join(run(["--help"]).stdout.split())  # argparse wraps lines
    assert "wins over SEVDESK_HTTP_PORT" in help_text
