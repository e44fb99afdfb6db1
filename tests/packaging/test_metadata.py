"""The package's metadata (``pyproject.toml``) is complete and agrees with what it describes.

One version everywhere it is written, the Python versions of the classifiers equal to the
hosted CI's matrix and to ``requires-python``, the project's links present. Runs in the normal
suite: it reads the committed files only.
"""

from __future__ import annotations

import json
import re
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet

from sevdesk_mcp import __version__
from tests.packaging.conftest import ROOT

PROJECT: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
REPOSITORY = "https://github.com/mcp-server-sevdesk/mcp-server-sevdesk"
CI_WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
PYTHON_CLASSIFIER = re.compile(r"^Programming Language :: Python :: (3\.\d+)$")


def classifier_pythons(classifiers: list[str]) -> set[str]:
    """:returns: the minor versions ``3.N`` the classifiers name."""
    return {m.group(1) for c in classifiers if (m := PYTHON_CLASSIFIER.match(c))}


def matrix_pythons(workflow: dict[str, Any]) -> set[str]:
    """:returns: every Python version a job's matrix of the workflow runs."""
    found: set[str] = set()
    for job in workflow.get("jobs", {}).values():
        matrix = (job.get("strategy") or {}).get("matrix") or {}
        for key, values in matrix.items():
            if "python" in str(key).lower() and isinstance(values, list):
                found |= {str(v) for v in values}
    return found


def json_version(path: str, *keys: str | int) -> str:
    data: Any = json.loads((ROOT / path).read_text())
    for key in keys:
        data = data[key]
    return str(data)


def written_versions() -> dict[str, str]:
    """:returns: file -> the package version written in it (every place that holds one)."""
    versions = {
        "sevdesk_mcp/__init__.py": __version__,
        "mcpb/manifest.json": json_version("mcpb/manifest.json", "version"),
        "plugin/.claude-plugin/plugin.json": json_version(
            "plugin/.claude-plugin/plugin.json", "version"
        ),
        "plugin/.claude-plugin/marketplace.json": json_version(
            "plugin/.claude-plugin/marketplace.json", "plugins", 0, "version"
        ),
    }
    released = re.findall(
        r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$",
        (ROOT / "CHANGELOG.md").read_text(),
        flags=re.MULTILINE,
    )
    assert released, "CHANGELOG.md has no release heading '## [x.y.z] - YYYY-MM-DD'"
    versions["CHANGELOG.md (newest release)"] = released[0]
    dockerfile = re.search(r"^ARG VERSION=(\S+)$", (ROOT / "Dockerfile").read_text(), re.M)
    if dockerfile:  # the image's default label when built without --build-arg VERSION
        versions["Dockerfile (ARG VERSION)"] = dockerfile.group(1)
    return versions


def test_the_version_is_one_and_the_same_everywhere_it_is_written() -> None:
    differing = {f: v for f, v in written_versions().items() if v != __version__}
    assert not differing, f"not the package's version {__version__}: {differing}"
    assert "version" in PROJECT["dynamic"]  # pyproject reads sevdesk_mcp.__version__


def test_the_python_classifiers_are_the_ci_matrix() -> None:
    if not CI_WORKFLOW.is_file():
        pytest.fail(f"{CI_WORKFLOW.relative_to(ROOT)} is missing: the hosted CI's matrix")
    workflow = yaml.safe_load(CI_WORKFLOW.read_text())
    tested = matrix_pythons(workflow)
    assert tested, "no job of the CI workflow has a Python matrix"
    assert classifier_pythons(PROJECT["classifiers"]) == tested


def test_requires_python_admits_exactly_from_the_oldest_classifier_on() -> None:
    pythons = sorted(classifier_pythons(PROJECT["classifiers"]), key=lambda v: int(v[2:]))
    assert pythons, "no 'Programming Language :: Python :: 3.N' classifier"
    spec = SpecifierSet(PROJECT["requires-python"])
    oldest = int(pythons[0].split(".")[1])
    assert f"3.{oldest}.0" in spec and f"3.{oldest - 1}.99" not in spec
    assert all(f"{v}.0" in spec for v in pythons)
    # consecutive minor versions: no version left out of the middle of the range
    assert [int(v[2:]) for v in pythons] == list(range(oldest, oldest + len(pythons)))


def test_the_classifiers_say_what_the_package_is() -> None:
    classifiers = set(PROJECT["classifiers"])
    assert classifiers >= {
        "Development Status :: 5 - Production/Stable",
        "Operating System :: OS Independent",
        "Topic :: Office/Business :: Financial :: Accounting",
        "Natural Language :: German",
        "Natural Language :: English",
        "Typing :: Typed",
        "Framework :: AnyIO",
    }
    # PEP 639: the SPDX expression is the licence; setuptools refuses a licence classifier
    assert PROJECT["license"] == "MIT" and not any(c.startswith("License ::") for c in classifiers)
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert (ROOT / "sevdesk_mcp" / "py.typed").is_file()  # what "Typing :: Typed" promises


def test_authors_maintainers_and_keywords_are_set() -> None:
    for role in ("authors", "maintainers"):
        assert [p["name"] for p in PROJECT[role]] == ["mcp-server-sevdesk contributors"]
    assert {"mcp", "sevdesk", "accounting"} <= set(PROJECT["keywords"])


def test_the_project_urls_point_at_the_repository() -> None:
    urls: dict[str, str] = PROJECT["urls"]
    assert set(urls) == {"Homepage", "Source", "Issues", "Changelog", "Documentation"}
    assert all(url.startswith(REPOSITORY) for url in urls.values()), urls
    assert urls["Changelog"].endswith("/CHANGELOG.md") and (ROOT / "CHANGELOG.md").is_file()


def test_the_wheel_metadata_carries_the_project_urls_and_classifiers(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(archive.read(name).decode())
    assert metadata["Version"] == __version__
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL") or [])
    assert urls == PROJECT["urls"]
    assert sorted(metadata.get_all("Classifier") or []) == sorted(PROJECT["classifiers"])
    assert metadata["Author"] == "mcp-server-sevdesk contributors"
    assert metadata["License-Expression"] == "MIT"
