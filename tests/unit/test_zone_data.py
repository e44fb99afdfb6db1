"""Without time-zone data the server stops with one line saying how to get it (issue 41: a
fresh system without tzdata crashed with a traceback from the first module that needs
Europe/Berlin)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sevdesk_mcp.__main__ import NO_ZONE_DATA


@pytest.mark.skipif(
    importlib.util.find_spec("tzdata") is not None,
    reason="the tzdata package is installed here, so zoneinfo finds Europe/Berlin without the "
    "system's data",
)
def test_no_time_zone_data_is_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONTZPATH": str(tmp_path)}  # an empty folder: no zone data
    done = subprocess.run(
        [sys.executable, "-m", "sevdesk_mcp", "--version"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == NO_ZONE_DATA
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_importing_the_package_never_exits(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONTZPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", "import sevdesk_mcp; print(sevdesk_mcp.__version__)"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.strip()
