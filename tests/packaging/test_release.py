"""``scripts/packaging/build_release.sh``: what it writes is what its ``# artefacts:`` line says.

The release workflow and ``scripts/ci_packaging.sh`` both run that script, and both check its
output with ``scripts/packaging/check_dist.py``, tested here on planted folders; with
``PACKAGING_DIST`` (its output, from ``scripts/ci_packaging.sh``) the real one is checked too.
The script's refusals (a checkout as DIST, no commit time) are run up to the point of refusal.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.conftest import ROOT
from tests.packaging.support import load_script

CHECK = load_script("check_dist")
SCRIPT = ROOT / "scripts" / "packaging" / "build_release.sh"
GLOBS = CHECK.artefact_globs(SCRIPT.read_text())
PLANTED = ["pkg-*.whl", "requirements.lock", "SHA256SUMS"]


def test_the_artefacts_line_names_the_release_files() -> None:
    assert "SHA256SUMS" in GLOBS and "requirements.lock" in GLOBS
    assert any(g.endswith(".whl") for g in GLOBS) and any(g.endswith(".mcpb") for g in GLOBS)
    assert any(g.endswith(".cdx.json") for g in GLOBS)


def test_only_a_header_line_that_starts_with_the_marker_counts() -> None:
    text = "#!/bin/sh\n#   # artefacts: indented.txt\n# artefacts: a.whl b.lock\nset -eu\n"
    assert CHECK.artefact_globs(text) == ["a.whl", "b.lock"]
    body = "#!/bin/sh\nset -eu\n# artefacts: later.txt\n"
    with pytest.raises(SystemExit, match="0 '# artefacts:' lines"):
        CHECK.artefact_globs(body)
    with pytest.raises(SystemExit, match="2 '# artefacts:' lines"):
        CHECK.artefact_globs("# artefacts: a\n# artefacts: b\n")


def test_the_ci_builds_its_artefacts_with_this_script() -> None:
    ci = (ROOT / "scripts" / "ci_packaging.sh").read_text()
    assert "sh scripts/packaging/build_release.sh dist\n" in ci


def test_the_release_workflow_checks_its_folder_with_check_dist() -> None:
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    assert "python3 scripts/packaging/check_dist.py dist\n" in workflow
    assert "# artefacts: " not in workflow


def planted(folder: Path, names: list[str]) -> Path:
    """:returns: ``folder`` with ``names`` written and a right ``SHA256SUMS``."""
    folder.mkdir()
    for name in names:
        (folder / name).write_text(f"content of {name}\n")
    lines = [f"{hashlib.sha256((folder / n).read_bytes()).hexdigest()}  {n}" for n in names]
    (folder / "SHA256SUMS").write_text("".join(f"{line}\n" for line in sorted(lines)))
    return folder


def test_a_right_folder_passes(tmp_path: Path) -> None:
    dist = planted(tmp_path / "dist", ["pkg-1.0.whl", "requirements.lock"])
    assert CHECK.problems(dist, PLANTED) == []


def test_a_missing_artefact_and_an_unlisted_file_fail(tmp_path: Path) -> None:
    dist = planted(tmp_path / "dist", ["requirements.lock", "notes.txt"])
    (dist / "sub").mkdir()
    assert CHECK.listing_problems(dist, PLANTED) == [
        "nothing matches pkg-*.whl: build_release.sh did not build it",
        "notes.txt matches no glob of the artefacts line: list it in build_release.sh or remove it",
        "sub is not a plain file: remove it from the release folder",
    ]


def test_the_globs_are_matched_case_sensitively(tmp_path: Path) -> None:
    dist = planted(tmp_path / "dist", ["PKG-1.0.WHL", "requirements.lock"])
    assert "nothing matches pkg-*.whl: build_release.sh did not build it" in CHECK.problems(
        dist, PLANTED
    )


def test_wrong_checksums_fail(tmp_path: Path) -> None:
    dist = planted(tmp_path / "dist", ["pkg-1.0.whl", "requirements.lock"])
    (dist / "pkg-1.0.whl").write_text("changed\n")
    sums = (dist / "SHA256SUMS").read_text()
    (dist / "SHA256SUMS").write_text(sums + f"{'0' * 64}  gone.lock\nnot a line\n")
    assert CHECK.checksum_problems(dist) == [
        "SHA256SUMS line 4 is not 'SHA-256  NAME': 'not a line'",
        "SHA256SUMS lists gone.lock, which is not there",
        "SHA256SUMS has the wrong SHA-256 for pkg-1.0.whl: rebuild the release folder",
    ]
    (dist / "SHA256SUMS").write_text(next(s for s in sums.splitlines() if "pkg" in s) + "\n")
    assert CHECK.checksum_problems(dist) == [
        "SHA256SUMS has no line for requirements.lock",
        "SHA256SUMS has the wrong SHA-256 for pkg-1.0.whl: rebuild the release folder",
    ]
    (dist / "SHA256SUMS").unlink()
    assert CHECK.checksum_problems(dist) == ["no SHA256SUMS: build_release.sh writes it last"]


def test_the_command_line_prints_one_line_per_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dist = planted(tmp_path / "dist", ["stray.txt"])
    assert CHECK.main([str(dist)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert f"check_dist: {dist}: stray.txt matches no glob of the artefacts line" in err[-1]
    assert len(err) == len(GLOBS) - 1 + 1  # every glob but SHA256SUMS, and the stray file
    with pytest.raises(SystemExit, match="is not a folder"):
        CHECK.main([str(tmp_path / "none")])


def test_dist_holds_exactly_the_listed_artefacts(dist: Path) -> None:
    assert CHECK.problems(dist, GLOBS) == []


def release_copy(tmp_path: Path) -> Path:
    """:returns: a folder that is no git checkout, with a copy of the script where it runs."""
    tree = tmp_path / "tree"
    (tree / "scripts" / "packaging").mkdir(parents=True)
    shutil.copy(SCRIPT, tree / "scripts" / "packaging" / "build_release.sh")
    return tree


def run_release(tree: Path, dist: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHON": sys.executable,
        "WORK": str(tree / "work"),
        "GIT_CEILING_DIRECTORIES": str(tree.parent),
    }
    script = tree / "scripts" / "packaging" / "build_release.sh"
    return subprocess.run(
        ["sh", str(script), str(dist)], env=env, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("marker", ["pyproject.toml", ".git", "build_release.sh"])
def test_a_checkout_as_dist_is_refused_and_left_alone(tmp_path: Path, marker: str) -> None:
    tree = release_copy(tmp_path)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    if marker == ".git":
        (checkout / marker).mkdir()
    else:
        (checkout / marker).write_text("x\n")
    (checkout / "requirements.lock").write_text("kept\n")
    proc = run_release(tree, checkout)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"release: {checkout} holds a pyproject.toml, .git or build_release.sh, so it is part "
        "of a checkout: "
        "name a folder for the artefacts alone (e.g. dist)"
    ]
    assert (checkout / "requirements.lock").read_text() == "kept\n"


def test_without_the_commit_time_it_fails_with_the_safe_directory_hint(tmp_path: Path) -> None:
    tree = release_copy(tmp_path)
    proc = run_release(tree, tmp_path / "dist")
    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert "git cannot tell the last commit's time (SOURCE_DATE_EPOCH)" in line
    assert f'git config --global --add safe.directory "{tree}"' in line
