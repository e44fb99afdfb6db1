"""Helpers of the package tests: the official MCP SDK client against an installed server."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from mcp import Client, StdioServerParameters

HANG_GUARD_S = 120.0  # only a guard against a hang, never a timing assertion
DEMO_COMPANY = "Holzwerk Sonnenberg GmbH"


def load_script(name: str) -> ModuleType:
    """:returns: ``scripts/packaging/<name>.py`` as a module (the scripts are no package)."""
    path = Path(__file__).resolve().parents[2] / "scripts" / "packaging" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def base_environment(**extra: str) -> dict[str, str]:
    """:returns: this process's environment without ``SEVDESK_*``, ``PYTHON*`` and the venv
    (the server under test must find nothing of the checkout), plus ``extra``."""
    keep = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SEVDESK_", "PYTHON", "VIRTUAL_ENV", "PACKAGING_"))
    }
    venv_bin = str(Path(sys.executable).parent)
    path = [p for p in keep.get("PATH", "").split(os.pathsep) if p and p != venv_bin]
    return {**keep, "PATH": os.pathsep.join(path), **extra}


@asynccontextmanager
async def stdio_client(
    command: str, args: list[str], env: dict[str, str], cwd: Path, mode: str = "auto"
) -> AsyncIterator[Any]:
    """The SDK client connected to ``command args`` over stdio."""
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))
    async with Client(params, mode=mode, cache=None) as client:
        yield client


async def check_demo_session(client: Any, era: str) -> None:
    """A handshake in ``era`` and read tool calls against the demo books (or the fake)."""
    assert client.protocol_version == era
    tools = await client.list_tools()
    names = {t.name for t in tools.tools}
    assert {"sevdesk_server_status", "sevdesk_account_info", "sevdesk_search_contacts"} <= names
    info = await client.call_tool("sevdesk_account_info", {})
    assert info.is_error is not True
    assert DEMO_COMPANY in info.content[0].text
    found = await client.call_tool("sevdesk_search_contacts", {"query": "Brandt"})
    assert found.is_error is not True
    assert "Brandt" in found.content[0].text


@contextmanager
def background(command: list[str], env: dict[str, str], cwd: Path) -> Iterator[Path]:
    """Run ``command`` for the block, its stderr going to a file; :returns: that file. The
    process is stopped (SIGTERM, then SIGKILL) at the end."""
    log = cwd / f"{Path(command[0]).name}-{len(list(cwd.glob('*.stderr')))}.stderr"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            command,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        try:
            yield log
        finally:
            process.terminate()
            try:
                process.wait(timeout=HANG_GUARD_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_for(log: Path, marker: str) -> str:
    """:returns: the first line of ``log`` that holds ``marker``, waiting for it (a guard
    against a hang, no timing assertion)."""
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if marker in line:
                return line
        time.sleep(0.1)
    raise AssertionError(f"{marker!r} never appeared in {log.name}: {log.read_text()[-2000:]}")
