"""Build the container image's virtual environment (the Dockerfile's build stage runs this).

``python3 build_venv.py SOURCE VENV RUNTIME_PYTHON DATA``:

1. creates the venv ``VENV`` with this interpreter and installs the project from ``SOURCE`` into
   it (its runtime dependencies only, plus the extras named in the environment variable
   ``EXTRAS``, the Dockerfile's build argument: ``redis`` for several instances);
2. removes ``pip`` and ``setuptools`` from it: nothing in the image can install anything;
3. points the venv's interpreter links and ``pyvenv.cfg`` at ``RUNTIME_PYTHON``, the interpreter
   of the runtime image (``/usr/bin/python3.11`` in the distroless Python image), which need not
   be where this stage's interpreter is;
4. creates the folder ``DATA`` (copied into the image as the ``/data`` volume).

Standard library only, and no shell: the build stage may have neither.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

LEFT_OUT = ("pip", "setuptools", "_distutils_hack", "distutils-precedence.pth")
EXTRAS = re.compile(r"^[a-z]+(,[a-z]+)*$")


def requirement(source: Path, extras: str) -> str:
    """:returns: what pip installs: ``source``, with ``extras`` (``redis``) if any."""
    if not extras:
        return str(source)
    if not EXTRAS.match(extras):
        raise SystemExit(f"build_venv: EXTRAS must be names such as redis, not {extras!r}")
    return f"{source}[{extras}]"


def build(source: Path, venv: Path, runtime_python: str, data: Path) -> None:
    """Steps 1 to 4 of the module's description."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)  # noqa: S603
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    wanted = requirement(source, os.environ.get("EXTRAS", ""))
    subprocess.run(  # noqa: S603 - fixed arguments
        [*pip, "install", "--no-cache-dir", "--no-warn-script-location", wanted], check=True
    )
    subprocess.run([*pip, "uninstall", "--yes", "--quiet", "pip", "setuptools"], check=True)  # noqa: S603
    retarget(venv, runtime_python)
    data.mkdir(mode=0o700, parents=True, exist_ok=True)


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
        if key in ("executable", "command"):
            continue  # informational only, and they name this stage's interpreter
        lines.append(f"home = {os.path.dirname(runtime_python)}" if key == "home" else line)
    cfg.write_text("\n".join(lines) + "\n")
    for script in bindir.glob("pip*"):
        script.unlink()
    for site in venv.glob("lib/python3.*/site-packages"):
        left = sorted(p.name for p in site.iterdir() if p.name.split("-")[0] in LEFT_OUT)
        if left:
            raise SystemExit(f"build_venv: still in the venv: {', '.join(left)}")


def main(argv: list[str]) -> int:
    """:returns: 0; exits with a message on wrong arguments or a failed step."""
    if len(argv) != 4 or not all(arg.startswith("/") for arg in argv):
        raise SystemExit("usage: build_venv.py /SOURCE /VENV /RUNTIME/PYTHON /DATA (absolute)")
    build(Path(argv[0]), Path(argv[1]), argv[2], Path(argv[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
