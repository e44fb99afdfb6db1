"""OAuth mode on a state directory it may not write (I35-8b).

Railway mounts a volume owned by root; the image runs as uid 65532. Start-up then stops, and the
one line it prints must name the folder, its owner and mode, the user the server runs as and
the fix for each kind of platform, never a bare refusal. The folder here is real: as root (as
in CI, where ``chmod`` alone does not stop root) a root-owned folder is opened by a forked child
that has dropped to uid 65532 first; as any other user, a folder of its own without write
permission.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from pathlib import Path

import pytest

from sevdesk_mcp.errors import StartupError
from sevdesk_mcp.http.oauth.store import FileGrantStore, _not_writable

IMAGE_UID = 65532  # the Dockerfile's user
pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid"), reason="owners and uids are checked on POSIX systems only"
)


def open_store_as(uid: int | None, directory: Path) -> str:
    """:returns: what start-up of the grant store in ``directory`` says, run as ``uid`` (a
    forked child that drops to it; ``None``: this process)."""
    if uid is None:
        try:
            FileGrantStore(directory).release()
        except StartupError as exc:
            return str(exc)
        return "started"
    import fcntl  # noqa: F401 - the store locks with it; imported before the fork, as the child
    # may be unable to read the standard library (in a folder only root may enter)

    read, write = os.pipe()
    with warnings.catch_warnings():  # Python 3.12+ warns of forking with threads: the child
        warnings.simplefilter("ignore", DeprecationWarning)  # runs no thread, only this store
        pid = os.fork()
    if pid == 0:  # the child: drop privileges for good, then start the store
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            try:
                FileGrantStore(directory).release()
                message = "started"
            except StartupError as exc:
                message = str(exc)
            except Exception as exc:  # reported to the parent, whose assertion then fails
                message = f"the child failed: {exc!r}"
            os.write(write, message.encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read().decode()
    os.waitpid(pid, 0)
    return said


@pytest.mark.threat("I35-8b")
def test_a_volume_owned_by_another_user_stops_start_up_with_owner_uid_and_fixes(
    tmp_path: Path,
) -> None:
    if os.geteuid() == 0:  # Railway's case: root owns the volume, the server is 65532
        # the child must reach the folder to be refused by it: pytest's own folders are 0700
        base = Path(tempfile.mkdtemp(prefix="i35-8b-"))
        try:
            base.chmod(0o755)
            volume = base / "data"
            volume.mkdir(mode=0o755)
            runs_as, owner = IMAGE_UID, 0
            said = open_store_as(IMAGE_UID, volume)
            assert not list(volume.iterdir())  # nothing was created in it
        finally:
            shutil.rmtree(base)
        if "a folder above it is closed" in said:
            pytest.skip(f"uid {IMAGE_UID} cannot reach the temporary folder {base}: {said}")
    else:
        volume = tmp_path / "data"
        volume.mkdir(mode=0o755)
        volume.chmod(0o555)
        runs_as, owner = os.geteuid(), os.geteuid()
        try:
            said = open_store_as(None, volume)
        finally:
            volume.chmod(0o755)
    assert said.startswith(f"SEVDESK_HTTP_STATE_DIR: cannot write to {volume} (Permission denied)")
    mode = "0755" if owner == 0 else "0555"
    assert f"it belongs to uid {owner} (gid {os.getegid()}, mode {mode})" in said
    assert f"this server runs as uid {runs_as}" in said
    assert f"chown {runs_as}:" in said and "securityContext.fsGroup" in said
    assert "RAILWAY_RUN_UID=0" in said and "SEVDESK_HTTP_STATE_URL" in said
    assert "\n" not in said  # one line, as every start-up refusal


@pytest.mark.threat("I35-8b")
def test_a_missing_folder_names_the_parent_that_refuses_it(tmp_path: Path) -> None:
    parent = tmp_path / "lib"
    parent.mkdir()
    if os.geteuid() == 0:
        os.chown(parent, 12345, 23456)  # another user's folder: root could still write it
    said = _not_writable(parent / "mcp" / "state", PermissionError(13, "Permission denied"))
    uid, gid = (12345, 23456) if os.geteuid() == 0 else (os.geteuid(), os.getegid())
    assert f"cannot write to {parent / 'mcp' / 'state'} (Permission denied)" in said
    assert f"its parent {parent} belongs to uid {uid} (gid {gid}, mode 0" in said
    assert f"this server runs as uid {os.geteuid()} (gid {os.getegid()})" in said


def test_a_writable_folder_starts(tmp_path: Path) -> None:
    assert open_store_as(None, tmp_path / "state") == "started"


def test_the_section_the_refusal_points_to_exists() -> None:
    said = _not_writable(Path("/nowhere"), PermissionError(13, "Permission denied"))
    section = said.rsplit("'", 2)[-2]
    remote = (Path(__file__).resolve().parents[2] / "docs" / "remote.md").read_text()
    assert f"\n### {section}\n" in remote
