"""The container image: the Dockerfile's rules, and the built image run with podman.

The Dockerfile tests run always. The others need ``PACKAGING_IMAGE`` (an image built from the
Dockerfile) and podman configured for this machine (``CONTAINERS_CONF``; both set by
``scripts/ci_packaging.sh``). The container runs as it would in production: bearer auth, a
read-only root file system, state in the ``/data`` volume; here with the demo books, on the
host's network and a free port.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from sevdesk_mcp.safety.keychain import NO_KEYRING
from tests.packaging.conftest import ROOT, artifact
from tests.packaging.support import HANG_GUARD_S, check_demo_session, load_script

DOCKERFILE = (ROOT / "Dockerfile").read_text()
INSTRUCTIONS = re.findall(r"^([A-Z]+) ((?:[^\n]*\\\n)*[^\n]*)", DOCKERFILE, flags=re.MULTILINE)
SECRET = "packaging-test-secret-0123456789-abcdefghijklmnop"
UID = "65532"
CHECK = load_script("check_sbom")
IMAGE_LOCK = ROOT / "scripts" / "packaging" / "requirements-image.lock"


def keyring_tree() -> set[str]:
    """:returns: the 11 packages of ADR 0020's table: keyring and what only it brings, which
    the image leaves out."""
    adr = (ROOT / "docs" / "adr" / "0020-keyring.md").read_text()
    rows = re.findall(r"^\| `([A-Za-z0-9._-]+)` \| [0-9.]+ \| [0-9.]+ kB \|", adr, flags=re.M)
    assert len(rows) == 11, rows
    return {CHECK.normalise(name) for name in rows}


def instructions(keyword: str) -> list[str]:
    return [args for kw, args in INSTRUCTIONS if kw == keyword]


def test_three_stages_whose_bases_are_build_arguments() -> None:
    froms = instructions("FROM")
    assert froms == ["${BUILD_BASE} AS build", "${RUNTIME_BASE} AS install", "${RUNTIME_BASE}"]
    args = instructions("ARG")
    assert any(a.startswith("RUNTIME_BASE=gcr.io/distroless/python3") for a in args)
    assert any(a.startswith("BUILD_BASE=") for a in args)


@pytest.mark.threat("I35-8a")
def test_both_bases_are_pinned_by_digest() -> None:
    """A tag can be moved to other bytes; a digest cannot (issue 41)."""
    args = dict(a.split("=", 1) for a in instructions("ARG") if "=" in a)
    for name in ("BUILD_BASE", "RUNTIME_BASE"):
        assert re.fullmatch(r"[a-z0-9./-]+:[a-z0-9.-]+@sha256:[0-9a-f]{64}", args[name]), args[name]
    assert args["RUNTIME_BASE"].startswith("gcr.io/distroless/python3-debian12:nonroot@")


def test_the_stages_install_only_from_the_hash_locks() -> None:
    """The install stage gets the image's locks (keyring's tree left out: ADR 0020), not the
    wheel's."""
    copies = instructions("COPY")
    assert (
        "scripts/packaging/requirements-image.lock scripts/packaging/requirements-image-redis.lock"
        " /stage/" in copies
    )
    assert not [c for c in copies if "requirements.lock" in c or "requirements-redis" in c]
    assert (
        "scripts/packaging/requirements-build.lock /usr/local/share/requirements-build.lock"
        in copies
    )


def test_the_build_context_holds_the_locks() -> None:
    """``docker build .`` sends only what .dockerignore lets through; the COPY of the locks
    fails without them."""
    kept = (ROOT / ".dockerignore").read_text().splitlines()
    assert "!scripts/packaging/requirements*.lock" in kept, (
        "add the line !scripts/packaging/requirements*.lock to .dockerignore"
    )


def test_the_source_label_is_never_empty() -> None:
    args = dict(a.split("=", 1) for a in instructions("ARG") if "=" in a)
    assert args["SOURCE_URL"].strip('"').startswith("https://")


def test_the_dependencies_are_installed_by_the_runtimes_interpreter() -> None:
    # the build stage's newer Python 3.11 would evaluate markers such as redis's
    # `async-timeout; python_full_version < "3.11.3"` unlike the runtime's 3.11.2
    build, install = DOCKERFILE.split("FROM ${RUNTIME_BASE} AS install", 1)
    install = install.split("FROM ${RUNTIME_BASE}\n", 1)[0]
    (build_run,) = [a for kw, a in INSTRUCTIONS if kw == "RUN" and a in build]
    (install_run,) = [a for kw, a in INSTRUCTIONS if kw == "RUN" and a in install]
    assert '"prepare"' in build_run and '"/usr/bin/python3.11"' in build_run
    assert install_run.startswith('["/opt/venv/bin/python"') and '"install"' in install_run
    assert "ARG EXTRAS" in install and "ARG EXTRAS" not in build
    assert "COPY --from=install /opt/venv /opt/venv" in DOCKERFILE


def test_every_command_uses_the_exec_form_because_there_is_no_shell() -> None:
    for keyword in ("RUN", "CMD", "ENTRYPOINT"):
        for args in instructions(keyword):
            assert args.startswith("["), (keyword, args)
    (health,) = instructions("HEALTHCHECK")
    assert health.split("CMD", 1)[1].strip() == '["mcp-server-sevdesk", "healthcheck"]'


def test_the_final_stage_runs_as_65532_with_http_on_all_addresses_and_a_data_volume() -> None:
    final = DOCKERFILE.split("FROM ${RUNTIME_BASE}", 1)[1]
    assert f"\nUSER {UID}:{UID}\n" in final
    assert 'VOLUME ["/data"]' in final
    assert 'CMD ["--http"]' in final
    assert "SEVDESK_HTTP_HOST=0.0.0.0" in final and "SEVDESK_HTTP_PORT=8080" in final
    for label in ("source", "version", "licenses"):
        assert f"org.opencontainers.image.{label}=" in final


def test_every_setting_the_image_sets_is_documented() -> None:
    documented = set(
        re.findall(
            r"^\| `(SEVDESK_[A-Z_]+)`",
            (ROOT / "docs" / "configuration.md").read_text(),
            flags=re.MULTILINE,
        )
    )
    assert set(re.findall(r"(SEVDESK_[A-Z_]+)=", DOCKERFILE)) <= documented


# ---- the built image (needs the artifacts) ---------------------------------------------------


def podman(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        ["podman", *args], capture_output=True, text=True, check=False, timeout=HANG_GUARD_S
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)}: {proc.stdout}{proc.stderr}")
    return proc


@dataclass
class Running:
    name: str
    image: str
    url: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def container() -> Iterator[Running]:
    artifact("CONTAINERS_CONF")
    image = artifact("PACKAGING_IMAGE")
    name = os.environ.get("PACKAGING_CONTAINER") or f"mcp-server-sevdesk-test-{os.getpid()}"
    volume = f"{name}-data"
    port = free_port()
    podman("rm", "-f", name, check=False)
    podman(
        "run", "-d", "--name", name, "--network", "host", "--read-only",
        "-v", f"{volume}:/data",
        "-e", "SEVDESK_HTTP_AUTH=bearer", "-e", f"SEVDESK_HTTP_SECRET={SECRET}",
        "-e", f"SEVDESK_HTTP_PORT={port}", "-e", f"SEVDESK_HTTP_PUBLIC_URL=http://127.0.0.1:{port}",
        image, "--http", "--demo",
    )  # fmt: skip
    try:
        wait_until_healthy(name)
        yield Running(name, image, f"http://127.0.0.1:{port}/mcp")
    finally:
        podman("rm", "-f", name, check=False)
        podman("volume", "rm", "-f", volume, check=False)


def wait_until_healthy(name: str) -> None:
    """Run the health check until it passes; fail with the container's log if it never does
    (a guard against a hang: a bounded number of tries, no timing assertion)."""
    for _ in range(120):
        if podman("healthcheck", "run", name, check=False).returncode == 0:
            return
        state = json.loads(podman("inspect", name).stdout)[0]["State"]
        if not state["Running"]:
            break
        subprocess.run(["sleep", "0.5"], check=True)
    raise AssertionError(f"never healthy; log:\n{podman('logs', name, check=False).stderr}")


def exec_python(name: str, code: str) -> subprocess.CompletedProcess[str]:
    return podman("exec", name, "/usr/bin/python3", "-c", code, check=False)


def test_the_health_check_passes_and_podman_records_it(container: Running) -> None:
    assert podman("healthcheck", "run", container.name, check=False).returncode == 0
    state = json.loads(podman("inspect", container.name).stdout)[0]["State"]
    health = state.get("Health") or state.get("Healthcheck")
    assert health["Status"] == "healthy"


def test_the_image_says_uid_65532_and_the_process_runs_as_it(container: Running) -> None:
    (config,) = json.loads(podman("image", "inspect", container.image).stdout)
    assert config["Config"]["User"] == f"{UID}:{UID}"
    assert exec_python(container.name, "import os; print(os.getuid(), os.getgid())").stdout.split() == [UID, UID]  # fmt: skip
    # the server process itself, seen from the host
    users = podman("top", container.name, "user", "huser").stdout.split()[2:]
    assert users and all(u in (UID, "nonroot") for u in users[::2]), users


def test_there_is_no_shell_and_no_pip(container: Running) -> None:
    assert podman("exec", container.name, "/bin/sh", "-c", "true", check=False).returncode != 0
    proc = exec_python(container.name, "import importlib.util as u; print(u.find_spec('pip'), u.find_spec('setuptools'))")  # fmt: skip
    assert proc.stdout.split() == ["None", "None"], proc.stderr


def test_the_root_is_read_only_and_only_data_is_writable(container: Running) -> None:
    write = "import sys; open(sys.argv[1], 'w').write('x'); print('written')"
    root = podman(
        "exec", container.name, "/usr/bin/python3", "-c", write, "/opt/venv/x", check=False
    )
    data = podman("exec", container.name, "/usr/bin/python3", "-c", write, "/data/x", check=False)
    assert root.returncode != 0 and "Read-only file system" in root.stderr
    assert data.stdout.strip() == "written", data.stderr


def test_the_labels_name_version_and_licence(container: Running) -> None:
    (config,) = json.loads(podman("image", "inspect", container.image).stdout)
    labels = config["Config"]["Labels"]
    assert labels["org.opencontainers.image.licenses"] == "MIT"
    assert labels["org.opencontainers.image.version"]
    assert labels["org.opencontainers.image.source"].startswith("https://")


def test_the_images_venv_is_what_its_sbom_lists(container: Running) -> None:
    """Every distribution in the image's /opt/venv is in the image's SBOM with its version, each
    component's hash is a file of the lock the image installed with --require-hashes, and
    nothing else is listed."""
    dist = Path(artifact("PACKAGING_DIST"))
    (sbom_file,) = dist.glob("mcp-server-sevdesk-*-image.cdx.json")
    (config,) = json.loads(podman("image", "inspect", container.image).stdout)
    version = config["Config"]["Labels"]["org.opencontainers.image.version"]
    command = ["exec", container.name, "/opt/venv/bin/python", "-I", "-c", CHECK.TREE]
    installed = CHECK.tree(["podman", *command])
    locked = CHECK.parse_lock(IMAGE_LOCK.read_text())
    assert set(installed) - {"mcp-server-sevdesk"} == {
        name for name in locked if name != "tzdata"
    }  # every pin of the lock but Windows' tzdata
    sbom = json.loads(sbom_file.read_text())
    assert CHECK.problems(sbom, installed, locked, version) == []


def test_the_image_holds_none_of_keyrings_tree(container: Running) -> None:
    """ADR 0020: no package the image could never use; the SBOM says so as well."""
    tree = keyring_tree()
    dist = Path(artifact("PACKAGING_DIST"))
    (sbom_file,) = dist.glob("mcp-server-sevdesk-*-image.cdx.json")
    listed = {CHECK.normalise(c["name"]) for c in json.loads(sbom_file.read_text())["components"]}
    assert listed and not listed & tree, sorted(listed & tree)
    command = ["exec", container.name, "/opt/venv/bin/python", "-I", "-c", CHECK.TREE]
    assert not set(CHECK.tree(["podman", *command])) & tree
    proc = podman(
        "exec", container.name, "/opt/venv/bin/python", "-c", "import keyring", check=False
    )
    assert proc.returncode != 0 and "ModuleNotFoundError: No module named 'keyring'" in proc.stderr


@pytest.mark.parametrize("operation", ["check", "set"])
def test_the_token_commands_say_in_one_line_that_the_image_has_no_keyring(
    container: Running, operation: str
) -> None:
    proc = podman("exec", container.name, "mcp-server-sevdesk", "token", operation, check=False)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"mcp-server-sevdesk: Cannot use the keychain: {NO_KEYRING}"
    ]


@asynccontextmanager
async def http_client(url: str, mode: str) -> AsyncIterator[Any]:
    headers = {"Authorization": f"Bearer {SECRET}"}
    timeout = httpx2.Timeout(60)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, cache=None) as c,
    ):
        yield c


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "era"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
async def test_an_mcp_tool_call_over_http_from_the_host(
    container: Running, mode: str, era: str
) -> None:
    async with http_client(container.url, mode) as client:
        await check_demo_session(client, era)
