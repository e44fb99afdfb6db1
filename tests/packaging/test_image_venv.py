"""The image's venv, built as the Dockerfile builds it, works under the runtime's interpreter.

The default build base has the newest Python 3.11; the distroless runtime has Debian 12's 3.11.2.
A dependency marker such as redis's ``async-timeout; python_full_version < "3.11.3"`` differs
between the two, so a venv whose dependencies were chosen by the build stage's interpreter can
lack a package the runtime needs (I35-8a). This test builds the venv with two interpreters in
the two roles: ``PACKAGING_BUILD_PYTHON`` (default: this one) for the build stage and
``PACKAGING_RUNTIME_PYTHON`` (default: ``/usr/bin/python3.11``, Debian 12's) for the runtime,
from the built wheel and the image's hash lock of the redis extra
(``requirements-image-redis.lock``, with ``--require-hashes``; keyring's tree left out, ADR 0020,
so the install's pip check accepts only the wheel's missing keyring), then imports
``redis.asyncio`` with the venv's interpreter, checks that ``keyring`` is not there and
compares the installed versions with the lock. It needs the wheel (``PACKAGING_DIST``), both
interpreters and the package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.conftest import ROOT
from tests.packaging.support import HANG_GUARD_S, base_environment, load_script

BUILD_VENV = ROOT / "scripts" / "packaging" / "build_venv.py"
LOCKS = ("requirements-image.lock", "requirements-image-redis.lock")
CHECK = load_script("check_sbom")
DEBIAN_PYTHON = "/usr/bin/python3.11"
VERSION = "import sys; print(*sys.version_info[:3])"


def version(python: str) -> tuple[int, ...]:
    """:returns: the version of the interpreter ``python``."""
    proc = subprocess.run([python, "-I", "-c", VERSION], capture_output=True, text=True, check=True)
    return tuple(int(part) for part in proc.stdout.split())


@pytest.fixture
def interpreters() -> tuple[str, str]:
    """:returns: the build stage's and the runtime's interpreter; skips unless both are there
    and differ the way the image's do (the same 3.11, an older patch release at runtime)."""
    build = os.environ.get("PACKAGING_BUILD_PYTHON") or sys.executable
    runtime = os.environ.get("PACKAGING_RUNTIME_PYTHON") or DEBIAN_PYTHON
    if not Path(runtime).is_file():
        pytest.skip(
            f"no runtime interpreter at {runtime}: install Debian 12's python3 (3.11.2, the "
            "distroless runtime's) or set PACKAGING_RUNTIME_PYTHON to one"
        )
    built, runs = version(build), version(runtime)
    if built[:2] != (3, 11) or runs[:2] != (3, 11) or runs >= built:
        pytest.skip(
            f"the build stage's stand-in ({build}, {built}) must be a Python 3.11 newer than "
            f"the runtime's ({runtime}, {runs}), as in the image; set PACKAGING_BUILD_PYTHON "
            "and PACKAGING_RUNTIME_PYTHON"
        )
    return build, runtime


@pytest.mark.threat("I35-8a")
def test_the_redis_extra_imports_under_the_runtime_interpreter(
    wheel: Path, interpreters: tuple[str, str], tmp_path: Path
) -> None:
    build, runtime = interpreters
    venv, stage = tmp_path / "opt" / "venv", tmp_path / "stage"
    python = venv / "bin" / "python"
    env = base_environment(EXTRAS="redis")
    # the Dockerfile's two RUN instructions: the build stage, then the stage on the runtime image
    prepare = [str(wheel), str(venv), runtime, str(stage), str(tmp_path / "data")]
    subprocess.run([build, str(BUILD_VENV), "prepare", *prepare], env=env, check=True)
    assert python.resolve() == Path(runtime).resolve()
    for lock in LOCKS:  # the Dockerfile's COPY of the hash locks into /stage
        shutil.copyfile(BUILD_VENV.with_name(lock), stage / lock)
    subprocess.run(
        [str(python), str(BUILD_VENV), "install", str(venv), str(stage)],
        env=env,
        check=True,
        timeout=HANG_GUARD_S * 5,
    )
    proc = subprocess.run(
        [str(python), "-I", "-c", "import redis.asyncio; print(redis.__version__)"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, f"the venv lacks what the runtime needs:\n{proc.stderr}"
    site = next(venv.glob("lib/python3.*/site-packages"))
    assert list(site.glob("async_timeout*")), "async-timeout: the runtime's marker wants it"
    assert not list(site.glob("pip*")) and not list((venv / "bin").glob("pip*"))
    no_keyring = subprocess.run(
        [str(python), "-I", "-c", "import keyring"], capture_output=True, text=True, check=False
    )
    assert no_keyring.returncode != 0 and "No module named 'keyring'" in no_keyring.stderr
    # exactly the locked versions, nothing else (the runtime's markers decide which apply)
    locked = CHECK.parse_lock(BUILD_VENV.with_name("requirements-image-redis.lock").read_text())
    installed = CHECK.tree([str(python), "-I", "-c", CHECK.TREE])
    installed.pop("mcp-server-sevdesk")
    assert installed == {name: locked[name][0] for name in installed}
    assert {"redis", "async-timeout", "cryptography"} <= set(installed)
    assert not {"keyring", "jaraco-classes", "lazy-importer", "jeepney"} & set(installed)
