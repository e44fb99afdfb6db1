"""Fixtures of the package tests: the built artifacts, named by ``PACKAGING_*`` variables.

``scripts/ci_packaging.sh`` builds the wheel, the sdist, the SBOM, the Claude Desktop bundle and
the container image, then runs these tests with the variables set. Without them (the normal
``make test`` run, which builds nothing) every test that needs an artifact is skipped with the
reason; the tests of the committed files (manifests, templates, documented dependency set) run
always.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOW = "scripts/ci_packaging.sh builds the artifacts and runs these tests with them"


def artifact(variable: str) -> str:
    """:returns: the value of ``variable``; skips the test when it is not set."""
    value = os.environ.get(variable, "")
    if not value:
        pytest.skip(f"{variable} is not set: {HOW}")
    return value


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK client runs on asyncio


@pytest.fixture
def dist() -> Path:
    """The folder with the wheel, the sdist, the SBOM and the bundle."""
    return Path(artifact("PACKAGING_DIST"))


@pytest.fixture
def wheel(dist: Path) -> Path:
    (found,) = dist.glob("*.whl")
    return found


@pytest.fixture
def runtime_venv() -> Path:
    """A fresh venv with the wheel alone installed (no test extras)."""
    return Path(artifact("PACKAGING_RUNTIME_VENV"))


@pytest.fixture
def uv() -> Path:
    return Path(artifact("PACKAGING_UV"))


@pytest.fixture
def npm() -> Path:
    """The npm prefix with Node 22 and ``@anthropic-ai/mcpb``."""
    return Path(artifact("PACKAGING_NPM"))


@pytest.fixture
def image() -> str:
    artifact("CONTAINERS_CONF")  # podman's settings for this machine (scripts/ci_packaging.sh)
    return artifact("PACKAGING_IMAGE")


@pytest.fixture
def uv_env(tmp_path: Path) -> dict[str, str]:
    """Environment for ``uv``/``uvx``: caches in the test's folder, this machine's Python (no
    interpreter downloads), the system's certificate store."""
    return {
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "UV_TOOL_DIR": str(tmp_path / "uv-tools"),
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_PYTHON": "python3",
        "UV_NATIVE_TLS": "1",
        "UV_NO_PROGRESS": "1",
    }
