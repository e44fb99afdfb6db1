"""Threat case F03, issue 12 finding 7 (file part): the audit file is checked at start-up.

A symbolic link at ``SEVDESK_AUDIT_LOG`` used to be noticed only by the first write (which then
failed closed in the middle of an approved action); an existing file that others could read was
appended to as it was. Now start-up refuses the link with one line naming the variable (exit
status 2) and narrows a wide file to 0600 with a warning.
"""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.safety.audit import AuditError, AuditLog
from sevdesk_mcp.server import ServerFactory

ROOT = Path(__file__).resolve().parents[2]
LINE = '{"event":"earlier"}\n'
posix_only = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


def start(path: Path) -> ServerFactory:
    """:returns: the server factory start-up builds with ``SEVDESK_AUDIT_LOG=path``."""
    return ServerFactory(load_config({"SEVDESK_AUDIT_LOG": str(path)}))


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@posix_only
@pytest.mark.threat("F03")
@pytest.mark.parametrize("dangling", [False, True], ids=["to a file", "dangling"])
def test_a_symlinked_audit_path_is_refused_at_start_up(tmp_path: Path, dangling: bool) -> None:
    target, link = tmp_path / "elsewhere.jsonl", tmp_path / "audit.jsonl"
    if not dangling:
        target.write_text(LINE)
    link.symlink_to(target)
    with pytest.raises(ConfigError, match="symbolic link") as caught:
        start(link)
    assert caught.value.variable == "SEVDESK_AUDIT_LOG"
    assert "real file" in str(caught.value) and "\n" not in str(caught.value)
    assert target.read_text() == LINE if not dangling else not target.exists()


@posix_only
@pytest.mark.threat("F03")
def test_a_symlinked_audit_path_stops_the_command_line_with_exit_2(tmp_path: Path) -> None:
    link = tmp_path / "audit.jsonl"
    link.symlink_to(tmp_path / "elsewhere.jsonl")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEVDESK_")}
    proc = subprocess.run(
        [sys.executable, "-m", "sevdesk_mcp", "--demo"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,  # a hang guard only
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT), "SEVDESK_AUDIT_LOG": str(link)},
        check=False,
    )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(lines) == 1 and "SEVDESK_AUDIT_LOG" in lines[0] and "symbolic link" in lines[0]


@posix_only
@pytest.mark.threat("F03")
@pytest.mark.parametrize("wide", [0o644, 0o666, 0o640, 0o604, 0o700], ids=oct)
def test_a_wider_audit_file_is_narrowed_to_0600_at_start_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, wide: int
) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text(LINE)
    path.chmod(wide)
    with caplog.at_level(logging.WARNING, logger="sevdesk_mcp"):
        start(path)
    assert mode(path) == 0o600 and path.read_text() == LINE
    assert "SEVDESK_AUDIT_LOG" in caplog.text and f"{wide:04o}" in caplog.text


@posix_only
@pytest.mark.threat("F03")
def test_a_0600_audit_file_is_left_alone_and_a_new_one_is_made_0600(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    kept, new = tmp_path / "kept.jsonl", tmp_path / "new.jsonl"
    kept.write_text(LINE)
    kept.chmod(0o600)
    with caplog.at_level(logging.WARNING, logger="sevdesk_mcp"):
        start(kept)
        audit = AuditLog(new)
    assert not new.exists() and caplog.text == ""
    audit.write("first")
    assert mode(new) == 0o600 and kept.read_text() == LINE


@posix_only
@pytest.mark.threat("F03")
def test_a_wide_audit_file_that_cannot_be_narrowed_refuses_start_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text(LINE)
    path.chmod(0o644)

    def not_the_owner(fd: int, mode: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "fchmod", not_the_owner)
    with pytest.raises(ConfigError, match="chmod 600") as caught:
        start(path)
    assert caught.value.variable == "SEVDESK_AUDIT_LOG" and "0644" in str(caught.value)


@posix_only
@pytest.mark.threat("F03")
def test_a_link_planted_after_start_up_fails_the_write_closed(tmp_path: Path) -> None:
    path, target = tmp_path / "audit.jsonl", tmp_path / "elsewhere.jsonl"
    audit = AuditLog(path)
    path.symlink_to(target)
    with pytest.raises(AuditError, match="SEVDESK_AUDIT_LOG"):
        audit.write("executing")
    assert not target.exists()
