"""The first run cannot break (issue 41): ``scripts/preflight.sh`` and the Makefile's venv rule.

A missing, broken or old Python, or one without venv support, is named in one line with how to
get what is missing (fake interpreters on a temporary PATH); a half-made ``.venv`` is removed and,
through the real rule in a temporary copy of the Makefile, made again. No network: pip is told to
use no index. ``scripts/ci_first_run.sh`` shows the same on a fresh Debian 12 in a container.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.conftest import ROOT

PREFLIGHT = ROOT / "scripts" / "preflight.sh"
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs sh and make")


def environment(path: Path | None = None) -> dict[str, str]:
    """:returns: an environment without the checkout's venv, pip kept off every index; with
    ``path``, a PATH of that folder and the system's tools only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env |= {
        "PIP_NO_INDEX": "1",
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    if path is not None:
        env["PATH"] = f"{path}:/usr/bin:/bin"
    return env


def fake_python(folder: Path, script: str) -> Path:
    """:returns: an executable ``python3`` in ``folder`` running the sh ``script``."""
    folder.mkdir(exist_ok=True)
    fake = folder / "python3"
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(0o755)
    return fake


def preflight(
    cwd: Path, python: str, env: dict[str, str], venv: str = ".venv"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(PREFLIGHT), python, venv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def refusal(result: subprocess.CompletedProcess[str]) -> str:
    """:returns: the one line a refusal printed, after checking it is one line and status 1."""
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in lines[0]
    assert "brew install python@3.12" in lines[0]
    assert "https://www.python.org/downloads/" in lines[0]
    return lines[0]


def test_a_missing_python_is_named_with_how_to_get_it(tmp_path: Path) -> None:
    line = refusal(preflight(tmp_path, "python3-nowhere", environment(tmp_path / "bin")))
    assert line.startswith("preflight: Python not found (PY=python3-nowhere)")
    assert "3.11 or newer" in line
    assert "sudo apt install python3 python3-venv" in line


def test_a_python_that_does_not_run_is_named(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    fake_python(bin_dir, "exit 1")
    line = refusal(preflight(tmp_path, "python3", environment(bin_dir)))
    assert line.startswith("preflight: python3 does not run")


@pytest.mark.parametrize("version", ["3.10", "2.7"])
def test_an_old_python_is_named_with_the_version_to_get(tmp_path: Path, version: str) -> None:
    bin_dir = tmp_path / "bin"
    fake_python(bin_dir, f"echo {version}")
    line = refusal(preflight(tmp_path, "python3", environment(bin_dir)))
    assert line.startswith(f"preflight: python3 is Python {version}, the set-up needs 3.11")
    assert "sudo apt install python3.11 python3.11-venv" in line
    assert "make PY=python3.11" in line


def test_a_python_without_ensurepip_is_named_with_its_venv_package(tmp_path: Path) -> None:
    # Debian's python3 without python3-venv: `venv` is there, `ensurepip` is not
    bin_dir = tmp_path / "bin"
    fake_python(bin_dir, 'case "$2" in *ensurepip*) exit 1 ;; *) echo 3.12 ;; esac')
    line = refusal(preflight(tmp_path, "python3", environment(bin_dir)))
    assert line.startswith("preflight: python3 (Python 3.12) has no venv support")
    assert "sudo apt install python3.12-venv" in line


def test_a_good_python_and_no_venv_pass_silently(tmp_path: Path) -> None:
    result = preflight(tmp_path, sys.executable, environment())
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def half_made(tmp_path: Path, marker: bool, pip: bool) -> Path:
    """:returns: a venv made without pip (``pip``: a fake ``pip`` package in it), with the
    marker or not."""
    venv = tmp_path / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    if pip:  # a stand-in python for which every check passes (not written through the link)
        python = venv / "bin" / "python"
        python.unlink()
        python.write_text("#!/bin/sh\nexit 0\n")
        python.chmod(0o755)
    if marker:
        (venv / ".complete").touch()
    return venv


@pytest.mark.parametrize("marker", [False, True])
def test_a_half_made_venv_is_removed_with_one_line(tmp_path: Path, marker: bool) -> None:
    venv = half_made(tmp_path, marker, pip=False)
    result = preflight(tmp_path, sys.executable, environment())
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "preflight: .venv is half-made (it has no pip); removing it and making it again\n"
    )
    assert not venv.exists()


def test_a_working_venv_without_the_marker_is_kept(tmp_path: Path) -> None:
    """A developer's venv from before the marker, or a user's own: never removed."""
    venv = half_made(tmp_path, marker=False, pip=True)
    result = preflight(tmp_path, sys.executable, environment())
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert (venv / "bin" / "python").exists()


def test_a_venv_whose_python_is_gone_is_removed(tmp_path: Path) -> None:
    venv = half_made(tmp_path, marker=True, pip=False)
    (venv / "bin" / "python").unlink()
    (venv / "bin" / "python").symlink_to(tmp_path / "python3.9-uninstalled")
    result = preflight(tmp_path, sys.executable, environment())
    assert "(.venv/bin/python does not run); removing it" in result.stdout
    assert not venv.exists()


def test_a_complete_venv_is_kept(tmp_path: Path) -> None:
    venv = half_made(tmp_path, marker=True, pip=True)
    result = preflight(tmp_path, sys.executable, environment())
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert (venv / ".complete").exists()


def test_a_folder_that_is_no_venv_is_never_removed(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    line = preflight(tmp_path, sys.executable, environment(), venv="mine").stderr
    assert line == (
        "preflight: mine is in the way but is no virtual environment (no pyvenv.cfg): move it"
        " away, or make VENV=another-folder\n"
    )
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def checkout(tmp_path: Path) -> Path:
    """:returns: a folder with just the Makefile and the preflight script."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(PREFLIGHT, tmp_path / "scripts" / "preflight.sh")
    return tmp_path


def make(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", f"PY={sys.executable}", *args],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_venv_rule_checks_first_and_writes_its_marker_last(tmp_path: Path) -> None:
    planned = make(checkout(tmp_path), "-n", "setup").stdout.splitlines()
    assert planned[0] == f"sh scripts/preflight.sh '{sys.executable}' '.venv'"
    assert planned[1:4] == [
        f"{sys.executable} -m venv .venv",
        ".venv/bin/python -m pip install --quiet --upgrade pip",
        "touch .venv/.complete",
    ]
    assert planned[4].startswith(".venv/bin/python -m pip install --quiet -e")


def test_make_recovers_from_the_venv_debian_leaves_without_python3_venv(tmp_path: Path) -> None:
    # `python3 -m venv .venv` without ensurepip: a python that runs, no pip, no marker
    folder = checkout(tmp_path)
    half_made(folder, marker=False, pip=False)
    made = make(folder, ".venv/.complete")
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[0] == (
        "preflight: .venv is half-made (it has no pip); removing it and making it again"
    )
    pip = subprocess.run(
        [str(folder / ".venv" / "bin" / "python"), "-m", "pip", "--version"],
        capture_output=True,
        check=False,
    )
    assert pip.returncode == 0
    assert (folder / ".venv" / ".complete").is_file()
    assert make(folder, "-q", ".venv/.complete").returncode == 0  # -q: 0 when up to date
    (folder / ".venv" / "bin" / "python").unlink()  # the python under the venv is gone
    assert make(folder, "-q", ".venv/.complete").returncode == 1
