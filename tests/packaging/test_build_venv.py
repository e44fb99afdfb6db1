"""``scripts/packaging/build_venv.py``: the image's venv is pointed at the runtime interpreter.

The Dockerfile's build stage may have its Python elsewhere than the distroless runtime
(``/usr/local/bin`` in the default build base, ``/usr/bin/python3.11`` in the runtime); the
venv copied into the image must name the runtime's, and its dependencies are installed by the
runtime's interpreter (``test_image_venv.py`` builds one that way).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.packaging.conftest import ROOT
from tests.packaging.support import load_script

FOLDER = ROOT / "scripts" / "packaging"
CHECK = load_script("check_sbom")
# the image's locks and the wheel's they are compiled like, keyring left out (ADR 0020)
IMAGE_LOCKS = {
    "requirements-image.lock": "requirements.lock",
    "requirements-image-redis.lock": "requirements-redis.lock",
}


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


def keyring_tree() -> set[str]:
    """:returns: the packages of ADR 0020's table: keyring and what only it brings."""
    adr = (ROOT / "docs" / "adr" / "0020-keyring.md").read_text()
    rows = re.findall(r"^\| `([A-Za-z0-9._-]+)` \| [0-9.]+ \| [0-9.]+ kB \|", adr, flags=re.M)
    return {CHECK.normalise(name) for name in rows}


def test_each_extra_setting_has_its_own_image_lock(tmp_path: Path) -> None:
    module = load()
    for name in ("requirements.lock", "requirements-redis.lock", *IMAGE_LOCKS):
        (tmp_path / name).write_text("")
    assert module.lock_for(tmp_path, "") == tmp_path / "requirements-image.lock"
    assert module.lock_for(tmp_path, "redis") == tmp_path / "requirements-image-redis.lock"
    with pytest.raises(SystemExit, match=r"no requirements-image-memcache\.lock .*\(EXTRAS may"):
        module.lock_for(tmp_path, "memcache")
    with pytest.raises(SystemExit, match="EXTRAS must be names"):
        module.lock_for(tmp_path, "redis] ; rm -rf /")


def test_the_committed_locks_pin_every_requirement_with_hashes() -> None:
    """pip's --require-hashes refuses a lock with an unpinned or unhashed line; the image's
    install stage and the build stage use these files."""
    folder = FOLDER
    for name in (
        "requirements.lock",
        "requirements-redis.lock",
        "requirements-build.lock",
        *IMAGE_LOCKS,
    ):
        text = (folder / name).read_text()
        entries = [e for e in text.replace("\\\n", " ").splitlines() if e and e[0].isalpha()]
        assert entries, name
        for entry in entries:
            assert "==" in entry.split(";")[0] and "--hash=sha256:" in entry, (name, entry)
    for name in ("requirements-redis.lock", "requirements-image-redis.lock"):
        redis = (folder / name).read_text()
        assert "redis==" in redis and "async-timeout==" in redis  # with its marker for < 3.11.3
        assert "python_full_version < '3.11.3'" in redis


@pytest.mark.parametrize(("image", "wheel"), IMAGE_LOCKS.items())
def test_the_image_locks_are_the_wheels_without_keyrings_tree(image: str, wheel: str) -> None:
    """The image pins the wheel's releases with the same hashes (so the release's
    requirements.lock verifies the image's SBOM too), minus keyring and the ten packages only it
    brings: ADR 0020's table, and pywin32-ctypes, its Windows backend."""
    tree = keyring_tree()
    assert len(tree) == 11 and "keyring" in tree and "lazy-importer" in tree, tree
    image_pins = CHECK.parse_lock((FOLDER / image).read_text())
    wheel_pins = CHECK.parse_lock((FOLDER / wheel).read_text())
    assert not tree & set(image_pins)
    assert tree <= set(wheel_pins)
    assert set(wheel_pins) - set(image_pins) == tree | {"pywin32-ctypes"}
    assert {name: wheel_pins[name] for name in image_pins} == image_pins


def test_lock_sh_writes_the_image_locks_from_pyproject_without_keyring() -> None:
    lock_sh = (FOLDER / "lock.sh").read_text()
    for name in IMAGE_LOCKS:
        assert f" {name.removesuffix('.lock')}" in lock_sh, name
    assert '!= "keyring"' in lock_sh
    release = (FOLDER / "build_release.sh").read_text()
    assert "requirements-image.lock \\\n    requirements-image-redis.lock" in release


def fake_distribution(site: Path, name: str, version: str, *requires: str) -> None:
    """Plant the metadata of an installed distribution in ``site`` (what pip check reads)."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {requirement}" for requirement in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text("")


@pytest.fixture(scope="module")
def checked_venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """:returns: a venv with pip (real pip check) and its site-packages, holding this package
    at 1.0.0 whose keyring is missing, as the image's venv does."""
    venv = tmp_path_factory.mktemp("checked") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    site = next(venv.glob("lib/python3.*/site-packages"))
    fake_distribution(site, "mcp-server-sevdesk", "1.0.0", "anyio>=4.4", "keyring>=25")
    fake_distribution(site, "anyio", "4.16.0")
    return venv / "bin" / "python", site


def test_pip_check_accepts_only_this_packages_missing_keyring(
    checked_venv: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    python, _ = checked_venv
    load().check("1.0.0", python)
    line = "mcp-server-sevdesk 1.0.0 requires keyring, which is not installed."
    assert capsys.readouterr().out.strip().endswith(line)
    with pytest.raises(SystemExit, match=r"report only 'mcp-server-sevdesk 1\.1\.0 requires"):
        load().check("1.1.0", python)  # another version's line is not this wheel's


@pytest.mark.parametrize(
    ("planted", "found"),
    [
        (("anyio-extra", "1.0", "sniffio>=1"), "anyio-extra 1.0 requires sniffio, which is not"),
        (("h11-user", "2.0", "anyio>=5"), "h11-user 2.0 has requirement anyio>=5, but you have"),
    ],
)
def test_a_second_pip_check_finding_fails(
    checked_venv: tuple[Path, Path], planted: tuple[str, ...], found: str
) -> None:
    python, site = checked_venv
    fake_distribution(site, *planted)
    try:
        with pytest.raises(SystemExit, match=f"but found: {re.escape(found)}"):
            load().check("1.0.0", python)
    finally:
        for info in site.glob(f"{planted[0].replace('-', '_')}-*.dist-info"):
            for file in info.iterdir():
                file.unlink()
            info.rmdir()


def test_pip_check_fails_when_keyring_is_installed(checked_venv: tuple[Path, Path]) -> None:
    python, site = checked_venv
    fake_distribution(site, "keyring", "25.7.0")
    try:
        with pytest.raises(SystemExit, match="finds keyring installed"):
            load().check("1.0.0", python)
    finally:
        info = site / "keyring-25.7.0.dist-info"
        for file in info.iterdir():
            file.unlink()
        info.rmdir()


def test_the_install_stage_takes_the_lock_with_require_hashes() -> None:
    source = (ROOT / "scripts" / "packaging" / "build_venv.py").read_text()
    assert '"--require-hashes", "-r", str(lock)' in source
    assert "check(wheels[0].name.split" in source
