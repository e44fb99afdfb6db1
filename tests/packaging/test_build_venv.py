"""``scripts/packaging/build_venv.py``: the image's venv is pointed at the runtime interpreter.

The Dockerfile's build stage may have its Python elsewhere than the distroless runtime
(``/usr/local/bin`` in the default build base, ``/usr/bin/python3.11`` in the runtime); the
venv copied into the image must name the runtime's.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.packaging.conftest import ROOT


def load() -> ModuleType:
    path = ROOT / "scripts" / "packaging" / "build_venv.py"
    spec = importlib.util.spec_from_file_location("build_venv", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_venv_is_retargeted_to_the_runtime_interpreter(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (venv / "bin" / "pip").write_text("#!/bin/false\n")
    load().retarget(venv, "/usr/bin/python3.11")
    for name in ("python", "python3", f"python3.{sys.version_info.minor}"):
        assert (venv / "bin" / name).readlink() == Path("/usr/bin/python3.11")
    cfg = (venv / "pyvenv.cfg").read_text().splitlines()
    assert "home = /usr/bin" in cfg
    assert not any(line.startswith(("executable", "command")) for line in cfg)
    assert not list((venv / "bin").glob("pip*"))


def test_a_venv_that_still_holds_pip_is_refused(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (next(venv.glob("lib/python3.*/site-packages")) / "pip").mkdir()
    with pytest.raises(SystemExit, match="still in the venv: pip"):
        load().retarget(venv, "/usr/bin/python3.11")


def test_wrong_arguments_get_the_usage_line() -> None:
    with pytest.raises(SystemExit, match="usage"):
        load().main(["relative", "/v", "/p", "/d"])


def test_extras_are_added_by_name_only() -> None:
    module = load()
    assert module.requirement(Path("/src"), "") == "/src"
    assert module.requirement(Path("/src"), "redis") == "/src[redis]"
    with pytest.raises(SystemExit, match="EXTRAS"):
        module.requirement(Path("/src"), "redis] ; rm -rf /")
