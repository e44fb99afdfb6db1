"""Build the wheel and the sdist reproducibly.

``python scripts/packaging/build_dist.py OUTDIR`` (run with the build tools' interpreter, whose
venv is installed from ``scripts/packaging/tools.lock`` with ``--require-hashes``): builds both
with ``python -m build --no-isolation`` (the wheel from the sdist), so the build backend is the
hash-locked setuptools of that venv, never one fetched unpinned from the index, under
``SOURCE_DATE_EPOCH`` (the last commit's time when it is not set), then rewrites the sdist so
that it depends on nothing but the file contents: members sorted, times clamped to
``SOURCE_DATE_EPOCH``, owners and modes normalised, and the gzip header without a name and with
that time. The wheel needs no rewrite (its build honours the variable). Two builds of one tree
give identical bytes; ``scripts/ci_packaging.sh`` checks that.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def source_date_epoch() -> int:
    """:returns: ``SOURCE_DATE_EPOCH``, or the time of the last commit."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        value = subprocess.run(
            ["git", "log", "-1", "--format=%ct"],  # noqa: S607 - git from PATH
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    return int(value)


def build(outdir: Path, epoch: int) -> None:
    """Build sdist and wheel into ``outdir`` and normalise the sdist."""
    outdir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch)}
    proc = subprocess.run(  # noqa: S603 - fixed arguments
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(outdir), str(ROOT)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"build_dist: python -m build failed:\n{proc.stdout}{proc.stderr}")
    for sdist in outdir.glob("*.tar.gz"):
        normalise_sdist(sdist, epoch)


def normalise_sdist(path: Path, epoch: int) -> None:
    """Rewrite the tar.gz at ``path`` so that only the file contents decide its bytes."""
    with tarfile.open(path, "r:gz") as src:
        members = sorted(src.getmembers(), key=lambda m: m.name)
        data = {m.name: src.extractfile(m).read() if m.isfile() else b"" for m in members}  # type: ignore[union-attr]
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as dst:
        for member in members:
            member.mtime = min(int(member.mtime), epoch)
            member.uid = member.gid = 0
            member.uname = member.gname = ""
            member.pax_headers = {}
            member.mode = 0o755 if member.isdir() or member.mode & 0o111 else 0o644
            content = data[member.name]
            dst.addfile(member, io.BytesIO(content) if member.isfile() else None)
    with (
        path.open("wb") as out,
        gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=epoch, compresslevel=9) as gz,
    ):
        gz.write(raw.getvalue())


def main(argv: list[str]) -> int:
    """:returns: 0 after a build; exits with a usage line on wrong arguments."""
    if len(argv) != 1:
        raise SystemExit("usage: build_dist.py OUTDIR")
    epoch = source_date_epoch()
    build(Path(argv[0]).resolve(), epoch)
    print(f"build_dist: built {', '.join(sorted(p.name for p in Path(argv[0]).iterdir()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
