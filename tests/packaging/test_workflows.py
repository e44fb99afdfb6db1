"""The GitHub Actions workflows (issue 41): pinned actions, a read-only token by default, the
README's test command on three systems and three Pythons, and a release that builds with the
script .ci/run's packaging step uses and publishes exactly that script's artefacts.

Each check is a function returning the problems it finds; the tests assert there are none, and
``test_check_catches_planted_mistake`` plants one mistake per check into a copy of the files and
asserts the check reports it, so no check can pass by finding nothing to look at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from tests.packaging.conftest import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
BUILD_SCRIPT = "scripts/packaging/build_release.sh"
PYPI_ACTION = "pypa/gh-action-pypi-publish"
UPLOAD_ACTION = "actions/upload-artifact"
DOWNLOAD_ACTION = "actions/download-artifact"
OSES = {"ubuntu-latest", "macos-latest", "windows-latest"}
PYTHONS = {"3.11", "3.12", "3.13"}
_USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<rest>.*)$")
_PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
_VERSION_COMMENT = re.compile(r"^\s+# v\d+\.\d+\.\d+$")
_ARTEFACTS = re.compile(r"^# artefacts: (.+)$", re.MULTILINE)
_README_TEST = re.compile(r"^(make test)\s+#", re.MULTILINE)
_CALLS_BUILD = re.compile(r"(?:^|\s)sh scripts/packaging/build_release\.sh dist(?:\s|$)")
_BIN = re.compile(r"\$\(BIN\)/(\S+)")
_TOKEN_INPUTS = {"password", "user", "username", "token", "api-token"}


@dataclass(frozen=True)
class Files:
    """The texts the checks read, so a test can plant a mistake in a copy."""

    ci: str
    release: str
    readme: str
    ci_packaging: str
    build_script: str
    makefile: str
    others: tuple[tuple[str, str], ...]  # the other workflows: (file name, text)

    @classmethod
    def of_checkout(cls) -> Files:
        mine = {"ci.yml", "release.yml"}
        return cls(
            ci=(WORKFLOWS / "ci.yml").read_text(),
            release=(WORKFLOWS / "release.yml").read_text(),
            readme=(ROOT / "README.md").read_text(),
            ci_packaging=(ROOT / "scripts" / "ci_packaging.sh").read_text(),
            build_script=(ROOT / BUILD_SCRIPT).read_text(),
            makefile=(ROOT / "Makefile").read_text(),
            others=tuple(
                (path.name, path.read_text())
                for path in sorted(WORKFLOWS.glob("*.y*ml"))
                if path.name not in mine
            ),
        )

    def workflows(self) -> dict[str, str]:
        """Every workflow of .github/workflows, by file name."""
        return {"ci.yml": self.ci, "release.yml": self.release, **dict(self.others)}


def _load(text: str) -> dict[str, Any]:
    loaded = yaml.safe_load(text)
    assert isinstance(loaded, dict)
    return loaded


def _steps(workflow: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield name, step


def _uses(step: dict[str, Any], action: str) -> bool:
    return str(step.get("uses", "")).startswith(f"{action}@")


def pins(files: Files) -> list[str]:
    """Every ``uses:`` of every workflow: a full commit SHA and a ``# vX.Y.Z`` comment; only a
    self-repository reference (``$/…``: this repository's own file at the running commit) has
    neither."""
    problems = []
    for name, text in files.workflows().items():
        matched = [m for m in map(_USES_LINE.match, text.splitlines()) if m]
        lines = [m for m in matched if not m["ref"].startswith("$/")]
        in_tree = [s["uses"] for _, s in _steps(_load(text)) if "uses" in s]
        if len(lines) != len(in_tree):
            problems.append(f"{name}: {len(in_tree)} uses, {len(lines)} on lines of their own")
        for match in lines:
            if not _PINNED.match(match["ref"]):
                problems.append(f"{name}: {match['ref']} is not pinned to a 40-hex commit")
            if not _VERSION_COMMENT.match(match["rest"]):
                problems.append(f"{name}: {match['ref']} has no '# vX.Y.Z' comment")
    return problems


def _writes(permissions: object) -> bool:
    if isinstance(permissions, str):
        return permissions != "read-all"
    if isinstance(permissions, dict):
        return any(value not in {"read", "none"} for value in permissions.values())
    return True  # absent: the repository's default, which may be write


def permissions(files: Files) -> list[str]:
    """Every workflow read-only at the top; no job of the CI workflow writes either."""
    problems = []
    for name, text in files.workflows().items():
        workflow = _load(text)
        if _writes(workflow.get("permissions")):
            problems.append(f"{name}: top-level permissions are not read-only or empty")
    for job_name, job in _load(files.ci)["jobs"].items():
        if "permissions" in job and _writes(job["permissions"]):
            problems.append(f"ci.yml: job {job_name} asks for write permissions")
    return problems


def credentials(files: Files) -> list[str]:
    """No checkout keeps the token in .git, and no ``run:`` expands ``${{ }}`` (injection)."""
    problems = []
    for name, text in files.workflows().items():
        for job, step in _steps(_load(text)):
            kept = step.get("with", {}).get("persist-credentials") is not False
            if _uses(step, "actions/checkout") and kept:
                problems.append(f"{name}: a checkout of job {job} keeps its credentials")
            if "${{" in str(step.get("run", "")):
                problems.append(f"{name}: a run: of job {job} expands ${{{{ }}}}; use env:")
    return problems


def matrix(files: Files) -> list[str]:
    """The test job runs on the three systems with the three Pythons, none left out."""
    strategy = _load(files.ci)["jobs"]["test"].get("strategy", {})
    grid = strategy.get("matrix", {})
    problems = []
    if set(grid.get("os", [])) != OSES:
        problems.append(f"ci.yml: the test matrix's os is {grid.get('os')}, not {sorted(OSES)}")
    if {str(p) for p in grid.get("python", [])} != PYTHONS:
        problems.append(f"ci.yml: the test matrix's python is {grid.get('python')}")
    if "exclude" in grid:
        problems.append("ci.yml: the test matrix excludes combinations")
    return problems


def readme_command(files: Files) -> list[str]:
    """The README's test command is a line of a ``run:`` of the test job."""
    found = _README_TEST.search(files.readme)
    if found is None:
        return ["README.md: no 'make test   # ...' line"]
    runs = [str(s.get("run", "")) for j, s in _steps(_load(files.ci)) if j == "test"]
    if not any(found[1] in run.splitlines() for run in runs):
        return [f"ci.yml: the test job never runs the README's '{found[1]}'"]
    return []


def _recipe(makefile: str, target: str) -> list[str]:
    """:returns: the command lines of ``target``'s rule in ``makefile``."""
    found = re.search(rf"^{target}:[^\n]*\n((?:\t[^\n]*\n)*)", makefile, re.MULTILINE)
    return [line.strip() for line in found[1].splitlines()] if found else []


def windows_steps(files: Files) -> list[str]:
    """The Windows step runs the Makefile's setup, lint and test commands, in their order, with
    ``.venv/Scripts`` for ``$(BIN)`` and the Redis modules omitted as without a redis-server."""
    wanted = [
        _BIN.sub(r'"$BIN/\1"', line).replace("$(WITHOUT_REDIS)", '--omit="$REDIS_MODULES"')
        for target in ("setup", "lint", "test")
        for line in _recipe(files.makefile, target)
    ]
    if len(wanted) < 3:
        return ["Makefile: no setup, lint and test rules found"]
    steps = [s for j, s in _steps(_load(files.ci)) if j == "test" and "Windows" in str(s.get("if"))]
    runs = [line.strip() for s in steps for line in str(s.get("run", "")).splitlines()]
    if "BIN=.venv/Scripts" not in runs:
        return ["ci.yml: the Windows step does not set BIN=.venv/Scripts"]
    done = [line for line in runs if line in wanted]
    if done != wanted:
        missing = [line for line in wanted if line not in done]
        return [f"ci.yml: the Windows step does not run, in order, {missing or wanted}"]
    return []


def artefact_globs(build_script: str) -> list[str]:
    """:returns: the globs of the script's ``# artefacts:`` header line (empty without one)."""
    found = _ARTEFACTS.search(build_script)
    return found[1].split() if found else []


def one_build(files: Files) -> list[str]:
    """The release's build job and scripts/ci_packaging.sh both run build_release.sh."""
    problems = []
    runs = [str(s.get("run", "")) for j, s in _steps(_load(files.release)) if j == "build"]
    if not any(_CALLS_BUILD.search(line) for run in runs for line in run.splitlines()):
        problems.append(f"release.yml: the build job never runs 'sh {BUILD_SCRIPT} dist'")
    code = [ln for ln in files.ci_packaging.splitlines() if not ln.lstrip().startswith("#")]
    if not any(_CALLS_BUILD.search(line) for line in code):
        problems.append(f"scripts/ci_packaging.sh never runs 'sh {BUILD_SCRIPT} dist'")
    return problems


def uploads(files: Files) -> list[str]:
    """The build uploads exactly the script's artefacts; the release gets all of them."""
    globs = artefact_globs(files.build_script)
    if not globs:
        return [f"{BUILD_SCRIPT}: no '# artefacts: <glob> ...' line in its header"]
    workflow = _load(files.release)
    uploaded = [s for j, s in _steps(workflow) if j == "build" and _uses(s, UPLOAD_ACTION)]
    if len(uploaded) != 1:
        return [f"release.yml: the build job has {len(uploaded)} uploads, not one"]
    paths = set(str(uploaded[0]["with"]["path"]).split())
    problems = []
    if paths != {f"dist/{glob}" for glob in globs}:
        problems.append(f"release.yml: the build uploads {sorted(paths)}, the script {globs}")
    name = uploaded[0]["with"]["name"]
    steps = [s for j, s in _steps(workflow) if j == "github"]
    got = [s for s in steps if _uses(s, DOWNLOAD_ACTION) and s["with"].get("name") == name]
    if not got or not any("dist/*" in str(s.get("run", "")).split() for s in steps):
        problems.append(f"release.yml: the github job does not release every file of '{name}'")
    return problems


def trusted_publishing(files: Files) -> list[str]:
    """PyPI through trusted publishing: OIDC in the ``pypi`` environment, no token anywhere."""
    jobs = _load(files.release)["jobs"]
    publishing = [
        (name, job)
        for name, job in jobs.items()
        if any(_uses(s, PYPI_ACTION) for s in job.get("steps", []))
    ]
    if len(publishing) != 1:
        return [f"release.yml: {len(publishing)} jobs publish to PyPI, not one"]
    name, job = publishing[0]
    problems = []
    if job.get("permissions", {}).get("id-token") != "write":
        problems.append(f"release.yml: job {name} lacks 'id-token: write'")
    environment = job.get("environment")
    if (environment.get("name") if isinstance(environment, dict) else environment) != "pypi":
        problems.append(f"release.yml: job {name} does not run in the 'pypi' environment")
    if any(_uses(s, PYPI_ACTION) and _TOKEN_INPUTS & set(s.get("with", {})) for s in job["steps"]):
        problems.append(f"release.yml: job {name} passes a token to {PYPI_ACTION}")
    if "secrets." in yaml.safe_dump(job):
        problems.append(f"release.yml: job {name} reads a secret")
    return problems


CHECKS: dict[str, Callable[[Files], list[str]]] = {
    "pins": pins,
    "permissions": permissions,
    "credentials": credentials,
    "matrix": matrix,
    "readme_command": readme_command,
    "windows_steps": windows_steps,
    "one_build": one_build,
    "uploads": uploads,
    "trusted_publishing": trusted_publishing,
}

_SHA = "08c6903cd8c0fde910a37f88322edcfb5dd907a8"
# (check, file, text in it, replacement): each a mistake the check must report
PLANTED = [
    ("pins", "ci", f"checkout@{_SHA}", "checkout@v5"),
    ("pins", "release", f"checkout@{_SHA} # v5.0.0", f"checkout@{_SHA}"),
    ("pins", "ci", f"checkout@{_SHA} # v5.0.0", f"checkout@{_SHA[:12]} # v5.0.0"),
    ("permissions", "ci", "permissions:\n  contents: read", "permissions:\n  contents: write"),
    ("permissions", "release", "permissions: {}", "permissions: write-all"),
    ("permissions", "ci", "\njobs:\n  test:\n", "\njobs:\n  test:\n    permissions: write-all\n"),
    ("credentials", "release", "persist-credentials: false", "persist-credentials: true"),
    ("credentials", "ci", "run: make test\n", "run: make test ${{ github.head_ref }}\n"),
    ("matrix", "ci", "[ubuntu-latest, macos-latest, windows-latest]", "[ubuntu-latest]"),
    ("matrix", "ci", '["3.11", "3.12", "3.13"]', '["3.11", "3.12"]'),
    ("readme_command", "ci", "run: make test\n", "run: make lint\n"),
    ("windows_steps", "ci", '"$BIN/mypy"\n', ""),
    ("windows_steps", "makefile", "$(BIN)/mypy\n", "$(BIN)/mypy --strict\n"),
    ("windows_steps", "ci", "BIN=.venv/Scripts", "BIN=.venv/bin"),
    ("one_build", "release", f"run: sh {BUILD_SCRIPT} dist", "run: python -m build"),
    ("one_build", "ci_packaging", f"sh {BUILD_SCRIPT} dist", "python -m build"),
    ("uploads", "release", "            dist/SHA256SUMS\n", ""),
    ("uploads", "build_script", "# artefacts: ", "# files: "),
    ("uploads", "release", 'gh release create "$GITHUB_REF_NAME" dist/*', "gh release create"),
    (
        "trusted_publishing",
        "release",
        "packages-dir: pypi/",
        "password: x\n          packages-dir: pypi/",
    ),
    ("trusted_publishing", "release", "    environment: pypi\n", ""),
    (
        "trusted_publishing",
        "release",
        "id-token: write # trusted publishing",
        "contents: read # trusted publishing",
    ),
]


@pytest.fixture(scope="module")
def files() -> Files:
    return Files.of_checkout()


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_workflows_pass_check(files: Files, check: str) -> None:
    assert CHECKS[check](files) == []


@pytest.mark.parametrize(("check", "where", "old", "new"), PLANTED)
def test_check_catches_planted_mistake(
    files: Files, check: str, where: str, old: str, new: str
) -> None:
    text = getattr(files, where)
    assert old in text, f"the planted mistake's text is no longer in {where}: update PLANTED"
    planted = Files(**{**files.__dict__, where: text.replace(old, new, 1)})
    assert CHECKS[check](planted) != []


def test_every_check_has_a_planted_mistake() -> None:
    assert {check for check, *_ in PLANTED} == set(CHECKS)


def test_build_script_names_its_artefacts(files: Files) -> None:
    globs = artefact_globs(files.build_script)
    assert any(glob.endswith(".whl") for glob in globs)
    assert any(glob.endswith(".tar.gz") for glob in globs)
    assert any(glob.endswith(".cdx.json") for glob in globs)
    assert any(glob.endswith(".mcpb") for glob in globs)


def test_pypi_gets_wheel_and_sdist_only(files: Files) -> None:
    steps = _load(files.release)["jobs"]["pypi"]["steps"]
    runs = "\n".join(str(s.get("run", "")) for s in steps)
    assert "mv dist/*.whl dist/*.tar.gz pypi/" in runs
    (publish,) = [s for s in steps if _uses(s, PYPI_ACTION)]
    assert publish["with"]["packages-dir"] == "pypi/"


def test_release_runs_on_version_tags_only(files: Files) -> None:
    workflow: dict[object, Any] = yaml.safe_load(files.release)
    trigger = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert trigger == {"push": {"tags": ["v*"]}}


def test_dependabot_watches_every_pinned_kind() -> None:
    config = _load((ROOT / ".github" / "dependabot.yml").read_text())
    kinds = {update["package-ecosystem"] for update in config["updates"]}
    assert kinds == {"github-actions", "pip", "docker"}
    assert all(update["schedule"]["interval"] == "weekly" for update in config["updates"])
