"""``scripts/packaging/build_venv.py``: the image's venv is pointed at the runtime interpreter.

The Dockerfile's build stage may have its Python elsewhere than the distroless runtime
(``/usr/local/bin`` in the default build base, ``/usr/bin/python3.11`` in the runtime); the
venv copied into the image must name the runtime's, and its dependencies are installed by the
runtime's interpreter (``test_image_venv.py`` builds one that way).
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
    module = load()
    module.retarget(venv, "/usr/bin/python3.11")
    for name in ("python", "python3", f"python3.{sys.version_info.minor}"):
        assert (venv / "bin" / name).readlink() == Path("/usr/bin/python3.11")
    cfg = (venv / "pyvenv.cfg").read_text().splitlines()
    assert "home = /usr/bin" in cfg
    assert not any(line.startswith(("executable", "command", "version")) for line in cfg)
    module.strip(venv)
    assert not list((venv / "bin").glob("pip*"))


def test_a_venv_that_still_holds_pip_is_refused(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (next(venv.glob("lib/python3.*/site-packages")) / "pip").mkdir()
    with pytest.raises(SystemExit, match="still in the venv: pip"):
        load().strip(venv)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["/src", "/v", "/p", "/d"],
        ["prepare", "relative", "/v", "/p", "/s", "/d"],
        ["prepare", "/src", "/v", "/p", "/d"],
        ["install", "/v"],
    ],
)
def test_wrong_arguments_get_the_usage_line(argv: list[str]) -> None:
    with pytest.raises(SystemExit, match=r"usage: build_venv\.py prepare"):
        load().main(argv)


@pytest.mark.threat("I35-8a")
def test_install_refuses_an_interpreter_other_than_the_venvs(tmp_path: Path) -> None:
    # the dependencies must be chosen by the runtime's interpreter, through the venv
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    with pytest.raises(SystemExit, match=r"install must run with .*/venv/bin/python"):
        load().install(venv, tmp_path)


def test_extras_are_added_by_name_only() -> None:
    module = load()
    assert module.requirement(Path("/src"), "") == "/src"
    assert module.requirement(Path("/src"), "redis") == "/src[redis]"
    with pytest.raises(SystemExit, match="EXTRAS"):
        module.requirement(Path("/src"), "redis] ; rm -rf /")
