"""Build the container image's virtual environment (the Dockerfile's first two stages run this).

The venv's dependencies are chosen and installed by the runtime image's own interpreter, never by
the build stage's: a dependency's environment marker (redis's ``async-timeout;
python_full_version < "3.11.3"``, say) must be evaluated for the Python that runs the server,
and the default build base has a newer Python 3.11 than the distroless runtime's (I35-8a).

``python3 build_venv.py prepare SOURCE VENV RUNTIME_PYTHON STAGE DATA`` (the build stage, any
Python 3.11 with the ``venv`` module):

1. creates the venv ``VENV`` with this interpreter (with pip, nothing else);
2. builds the project's wheel from the folder ``SOURCE`` into ``STAGE`` (pure Python: nothing in
   it depends on the interpreter), or copies ``SOURCE`` there if it is a built wheel;
3. points the venv's interpreter links and ``pyvenv.cfg`` at ``RUNTIME_PYTHON``, the interpreter
   of the runtime image (``/usr/bin/python3.11`` in the distroless Python image), which need not
   be where this stage's interpreter is;
4. creates the folder ``DATA`` (copied into the image as the ``/data`` volume).

``VENV/bin/python build_venv.py install VENV STAGE`` (a stage on the runtime image, so
``VENV/bin/python`` is the runtime's interpreter):

5. installs the wheel in ``STAGE`` with its dependencies, plus the extras named in the
   environment variable ``EXTRAS`` (the Dockerfile's build argument: ``redis`` for several
   instances), every marker evaluated by this interpreter, and checks them with ``pip check``;
6. removes ``pip`` and ``setuptools``: nothing in the image can install anything.

Standard library only, and no shell: neither stage has one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

LEFT_OUT = ("pip", "setuptools", "_distutils_hack", "distutils-precedence.pth")
EXTRAS = re.compile(r"^[a-z]+(,[a-z]+)*$")
USAGE = (
    "usage: build_venv.py prepare /SOURCE /VENV /RUNTIME/PYTHON /STAGE /DATA, or "
    "build_venv.py install /VENV /STAGE (absolute paths)"
)


def requirement(wheel: Path, extras: str) -> str:
    """:returns: what pip installs: ``wheel``, with ``extras`` (``redis``) if any.

    :raises SystemExit: if ``extras`` is not a comma-separated list of names.
    """
    if not extras:
        return str(wheel)
    if not EXTRAS.match(extras):
        raise SystemExit(f"build_venv: EXTRAS must be names such as redis, not {extras!r}")
    return f"{wheel}[{extras}]"


def prepare(source: Path, venv: Path, runtime_python: str, stage: Path, data: Path) -> None:
    """Steps 1 to 4 of the module's description.

    :raises subprocess.CalledProcessError: if creating the venv or building the wheel fails.
    """
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)  # noqa: S603
    stage.mkdir(parents=True, exist_ok=True)
    if source.suffix == ".whl":
        shutil.copy2(source, stage / source.name)
    else:
        wheel = ["wheel", "--no-cache-dir", "--no-deps", "--wheel-dir", str(stage), str(source)]
        subprocess.run([*pip(venv / "bin" / "python"), *wheel], check=True)  # noqa: S603
    retarget(venv, runtime_python)
    data.mkdir(mode=0o700, parents=True, exist_ok=True)


def install(venv: Path, stage: Path) -> None:
    """Steps 5 and 6 of the module's description, run by the venv's (the runtime's) interpreter.

    :raises SystemExit: if this is not the venv's interpreter, the venv was made by another
        Python minor version, ``STAGE`` holds no single wheel, or pip is left in the venv.
    :raises subprocess.CalledProcessError: if installing or ``pip check`` fails.
    """
    if Path(sys.prefix).resolve() != venv.resolve():
        raise SystemExit(
            f"build_venv: install must run with {venv}/bin/python (the runtime's interpreter "
            f"through the venv), not {sys.executable}"
        )
    minor = f"python{sys.version_info.major}.{sys.version_info.minor}"
    if not (venv / "lib" / minor).is_dir():
        made = ", ".join(sorted(p.name for p in (venv / "lib").glob("python3.*"))) or "nothing"
        raise SystemExit(
            f"build_venv: the venv was made for {made} but the runtime is {minor}: the build "
            f"base needs the runtime's Python version ({minor})"
        )
    wheels = sorted(stage.glob("*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"build_venv: {stage} must hold exactly one wheel, not {len(wheels)}")
    wanted = requirement(wheels[0], os.environ.get("EXTRAS", ""))
    subprocess.run(  # noqa: S603 - fixed arguments
        [*pip(), "install", "--no-cache-dir", "--no-warn-script-location", wanted], check=True
    )
    subprocess.run([*pip(), "check"], check=True)  # noqa: S603 - markers of this interpreter
    subprocess.run([*pip(), "uninstall", "--yes", "--quiet", "pip", "setuptools"], check=True)  # noqa: S603
    strip(venv)


def pip(python: Path | None = None) -> list[str]:
    """:returns: the command that runs pip with ``python`` (default: this interpreter)."""
    return [str(python or sys.executable), "-m", "pip", "--disable-pip-version-check"]


def retarget(venv: Path, runtime_python: str) -> None:
    """Point the interpreter links and ``pyvenv.cfg`` of ``venv`` at ``runtime_python``."""
    bindir = venv / "bin"
    for name in ("python", "python3", f"python3.{sys.version_info.minor}"):
        link = bindir / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(runtime_python)
    cfg = venv / "pyvenv.cfg"
    lines = []
    for line in cfg.read_text().splitlines():
        key = line.split("=", 1)[0].strip()
        if key in ("executable", "command", "version", "version_info"):
            continue  # informational only, and they name this stage's interpreter
        lines.append(f"home = {os.path.dirname(runtime_python)}" if key == "home" else line)
    cfg.write_text("\n".join(lines) + "\n")


def strip(venv: Path) -> None:
    """Remove pip's scripts from ``venv``; :raises SystemExit: if pip or setuptools is left."""
    for script in (venv / "bin").glob("pip*"):
        script.unlink()
    for site in venv.glob("lib/python3.*/site-packages"):
        left = sorted(p.name for p in site.iterdir() if p.name.split("-")[0] in LEFT_OUT)
        if left:
            raise SystemExit(f"build_venv: still in the venv: {', '.join(left)}")


def main(argv: list[str]) -> int:
    """:returns: 0.

    :raises SystemExit: with the usage line on wrong arguments, or a message on a failed step.
    """
    command, paths = (argv[0], argv[1:]) if argv else ("", [])
    if not all(path.startswith("/") for path in paths):
        raise SystemExit(USAGE)
    if command == "prepare" and len(paths) == 5:
        source, venv, runtime_python, stage, data = paths
        prepare(Path(source), Path(venv), runtime_python, Path(stage), Path(data))
    elif command == "install" and len(paths) == 2:
        install(Path(paths[0]), Path(paths[1]))
    else:
        raise SystemExit(USAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
