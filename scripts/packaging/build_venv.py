"""Build the container image's virtual environment (the Dockerfile's first two stages run this).

The venv's dependencies are chosen and installed by the runtime image's own interpreter, never by
the build stage's: a dependency's environment marker (redis's ``async-timeout;
python_full_version < "3.11.3"``, say) must be evaluated for the Python that runs the server,
and the default build base has a newer Python 3.11 than the distroless runtime's (I35-8a).

``python3 build_venv.py prepare SOURCE VENV RUNTIME_PYTHON STAGE DATA`` (the build stage, any
Python 3.11 with the ``venv`` module):

1. creates the venv ``VENV`` with this interpreter (with pip, nothing else);
2. builds the project's wheel from the folder ``SOURCE`` into ``STAGE`` (pure Python: nothing in
   it depends on the interpreter) with the build backend of ``requirements-build.lock`` (next to
   this file; installed with ``--require-hashes`` into a venv of its own, no build isolation),
   or copies ``SOURCE`` there if it is a built wheel;
3. points the venv's interpreter links and ``pyvenv.cfg`` at ``RUNTIME_PYTHON``, the interpreter
   of the runtime image (``/usr/bin/python3.11`` in the distroless Python image), which need not
   be where this stage's interpreter is;
4. creates the folder ``DATA`` (copied into the image as the ``/data`` volume).

``VENV/bin/python build_venv.py install VENV STAGE`` (a stage on the runtime image, so
``VENV/bin/python`` is the runtime's interpreter):

5. installs the dependencies from the image's hash lock in ``STAGE``
   (``requirements-image.lock``, or ``requirements-image-redis.lock`` when the environment
   variable ``EXTRAS``, the Dockerfile's build argument, is ``redis``: the shared state of
   several instances) with ``--require-hashes``, so nothing but the locked files gets in, every
   marker evaluated by this interpreter; then the wheel in ``STAGE`` without dependencies. The
   image's locks leave keyring and what only it brings out (the image has no keychain: ADR
   0020), so ``pip check`` must report exactly one finding, this package's missing keyring
   (``ACCEPTED``), and nothing else;
6. removes ``pip`` and ``setuptools``: nothing in the image can install anything.

Standard library only, and no shell: neither stage has one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LEFT_OUT = ("pip", "setuptools", "_distutils_hack", "distutils-precedence.pth")
PROJECT = "mcp-server-sevdesk"
# pip check's line for a requirement that is not installed (pip's own wording)
ACCEPTED = "{project} {version} requires keyring, which is not installed."
EXTRAS = re.compile(r"^[a-z]+(,[a-z]+)*$")
USAGE = (
    "usage: build_venv.py prepare /SOURCE /VENV /RUNTIME/PYTHON /STAGE /DATA, or "
    "build_venv.py install /VENV /STAGE (absolute paths)"
)


def lock_for(stage: Path, extras: str) -> Path:
    """:returns: the image's hash lock in ``stage`` for ``extras``: ``requirements-image.lock``
    for none, ``requirements-image-redis.lock`` for ``redis``.

    :raises SystemExit: if ``extras`` is not a comma-separated list of names, or ``stage`` has
        no lock for it.
    """
    if extras and not EXTRAS.match(extras):
        raise SystemExit(f"build_venv: EXTRAS must be names such as redis, not {extras!r}")
    suffix = f"-{extras.replace(',', '-')}" if extras else ""
    name = f"requirements-image{suffix}.lock"
    if not (stage / name).is_file():
        raise SystemExit(
            f"build_venv: no {name} in {stage} for EXTRAS={extras!r}: the locks are made by "
            "scripts/packaging/lock.sh (EXTRAS may be empty or redis)"
        )
    return stage / name


def prepare(source: Path, venv: Path, runtime_python: str, stage: Path, data: Path) -> None:
    """Steps 1 to 4 of the module's description.

    :raises SystemExit: if the build backend's lock is missing.
    :raises subprocess.CalledProcessError: if creating the venv or building the wheel fails.
    """
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)  # noqa: S603
    stage.mkdir(parents=True, exist_ok=True)
    if source.suffix == ".whl":
        shutil.copy2(source, stage / source.name)
    else:
        build_wheel(source, stage)
    retarget(venv, runtime_python)
    data.mkdir(mode=0o700, parents=True, exist_ok=True)


def build_wheel(source: Path, stage: Path) -> None:
    """Build the wheel of the project folder ``source`` into ``stage`` with the locked backend.

    :raises SystemExit: if ``requirements-build.lock`` is not next to this file.
    :raises subprocess.CalledProcessError: if installing the backend or building fails.
    """
    lock = Path(__file__).with_name("requirements-build.lock")
    if not lock.is_file():
        raise SystemExit(f"build_venv: {lock} is missing: copy scripts/packaging/{lock.name} there")
    with tempfile.TemporaryDirectory() as tmp:
        builder = pip(Path(tmp) / "bin" / "python")
        subprocess.run([sys.executable, "-m", "venv", tmp], check=True)  # noqa: S603
        locked = ["install", "--no-cache-dir", "--require-hashes", "--no-deps", "-r", str(lock)]
        subprocess.run([*builder, *locked], check=True)  # noqa: S603 - fixed arguments
        wheel = ["wheel", "--no-cache-dir", "--no-deps", "--no-build-isolation"]
        subprocess.run([*builder, *wheel, "--wheel-dir", str(stage), str(source)], check=True)  # noqa: S603


def install(venv: Path, stage: Path) -> None:
    """Steps 5 and 6 of the module's description, run by the venv's (the runtime's) interpreter.

    :raises SystemExit: if this is not the venv's interpreter, the venv was made by another
        Python minor version, ``STAGE`` holds no single wheel or no lock for ``EXTRAS``,
        ``pip check`` finds anything but the missing keyring, or pip is left in the venv.
    :raises subprocess.CalledProcessError: if installing fails.
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
    lock = lock_for(stage, os.environ.get("EXTRAS", ""))
    options = ["install", "--no-cache-dir", "--no-warn-script-location", "--no-deps"]
    subprocess.run([*pip(), *options, "--require-hashes", "-r", str(lock)], check=True)  # noqa: S603
    subprocess.run([*pip(), *options, str(wheels[0])], check=True)  # noqa: S603 - fixed arguments
    check(wheels[0].name.split("-")[1])
    subprocess.run([*pip(), "uninstall", "--yes", "--quiet", "pip", "setuptools"], check=True)  # noqa: S603
    strip(venv)


def check(version: str, python: Path | None = None) -> None:
    """Run ``pip check`` with ``python`` (default: this interpreter, whose markers count) and
    accept exactly one finding: this package, at ``version``, requires keyring, which the image
    leaves out.

    :raises SystemExit: on any other finding, on no finding (keyring got into the venv), or if
        pip check fails without findings.
    """
    command = [*pip(python), "check"]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    findings = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    accepted = ACCEPTED.format(project=PROJECT, version=version)
    if proc.returncode == 0:
        raise SystemExit(
            "build_venv: pip check finds keyring installed, but the image's lock leaves it out: "
            "regenerate scripts/packaging/requirements-image*.lock with scripts/packaging/lock.sh"
        )
    others = [line for line in findings if line != accepted]
    if others or accepted not in findings:
        shown = "; ".join(others) or proc.stderr.strip() or f"exit status {proc.returncode}"
        raise SystemExit(
            f"build_venv: pip check may report only '{accepted}', but found: {shown} (fix the "
            "image's lock, scripts/packaging/lock.sh, or the wheel's requirements)"
        )
    print(f"build_venv: pip check: only the accepted finding: {accepted}")


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
