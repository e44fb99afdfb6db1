"""Check a release folder against the ``# artefacts:`` line of ``build_release.sh``.

``python3 scripts/packaging/check_dist.py DIST`` (the standard library only): the line, in the
header comment of ``scripts/packaging/build_release.sh``, lists as globs everything that script
writes into ``DIST``. It fails, with one line per problem, unless every glob matches at least one
file of ``DIST``, every entry of ``DIST`` is a file that matches a glob, and ``SHA256SUMS`` holds
the right SHA-256 of every other file, and of nothing else. ``build_release.sh`` runs it at its
end, the release workflow on what it uploads, ``tests/packaging/test_release.py`` on ``dist/``.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "build_release.sh"
PREFIX = "# artefacts: "
SUMS = "SHA256SUMS"
_SUM_LINE = re.compile(r"^([0-9a-f]{64})  (\S.*)$")


def header(text: str) -> list[str]:
    """:returns: the leading comment lines of the shell script ``text`` (its header)."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line)
    return lines


def artefact_globs(text: str) -> list[str]:
    """:returns: the globs of the one header line of ``text`` that starts with ``# artefacts:``.

    :raises SystemExit: unless the header has exactly one such line, and it names a glob.
    """
    found = [line[len(PREFIX) :].split() for line in header(text) if line.startswith(PREFIX)]
    if len(found) != 1 or not found[0]:
        raise SystemExit(
            f"check_dist: the header of build_release.sh has {len(found)} '{PREFIX.strip()}' "
            "lines with globs, not one: list the artefacts on one line of its header comment"
        )
    return found[0]


def listing_problems(dist: Path, globs: list[str]) -> list[str]:
    """:returns: the globs nothing in ``dist`` matches and the entries no glob matches."""
    entries = sorted(dist.iterdir())
    names = [p.name for p in entries if p.is_file() and not p.is_symlink()]
    problems = [
        f"nothing matches {glob}: build_release.sh did not build it"
        for glob in globs
        if not any(fnmatch.fnmatchcase(name, glob) for name in names)
    ]
    for entry in entries:
        if entry.name not in names:
            problems.append(f"{entry.name} is not a plain file: remove it from the release folder")
        elif not any(fnmatch.fnmatchcase(entry.name, glob) for glob in globs):
            problems.append(
                f"{entry.name} matches no glob of the artefacts line: list it in build_release.sh "
                "or remove it"
            )
    return problems


def checksum_problems(dist: Path) -> list[str]:
    """:returns: what is wrong with ``dist/SHA256SUMS``: a bad line, a file missing or extra, a
    wrong hash."""
    sums_file = dist / SUMS
    if not sums_file.is_file():
        return [f"no {SUMS}: build_release.sh writes it last"]
    problems, sums = [], {}
    for number, line in enumerate(sums_file.read_text().splitlines(), start=1):
        match = _SUM_LINE.match(line)
        if match is None:
            problems.append(f"{SUMS} line {number} is not 'SHA-256  NAME': {line[:80]!r}")
        else:
            sums[match.group(2)] = match.group(1)
    others = {p.name for p in dist.iterdir() if p.is_file() and p.name != SUMS}
    problems += [f"{SUMS} has no line for {name}" for name in sorted(others - set(sums))]
    problems += [f"{SUMS} lists {name}, which is not there" for name in sorted(set(sums) - others)]
    for name in sorted(others & set(sums)):
        if hashlib.sha256((dist / name).read_bytes()).hexdigest() != sums[name]:
            problems.append(f"{SUMS} has the wrong SHA-256 for {name}: rebuild the release folder")
    return problems


def problems(dist: Path, globs: list[str]) -> list[str]:
    """:returns: every problem of the release folder ``dist``."""
    return listing_problems(dist, globs) + checksum_problems(dist)


def main(argv: list[str]) -> int:
    """:returns: 0 if ``DIST`` holds exactly the listed artefacts, 1 with one line per problem.

    :raises SystemExit: with the usage line on wrong arguments or a ``DIST`` that is no folder.
    """
    if len(argv) != 1:
        raise SystemExit("usage: check_dist.py DIST")
    dist = Path(argv[0])
    if not dist.is_dir():
        raise SystemExit(f"check_dist: {dist} is not a folder: name the release folder (dist)")
    found = problems(dist, artefact_globs(SCRIPT.read_text()))
    for problem in found:
        print(f"check_dist: {dist}: {problem}", file=sys.stderr)
    if not found:
        print(f"check_dist: {dist}: the listed artefacts and their SHA256SUMS, nothing else")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
