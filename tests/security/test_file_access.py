"""Threat cases of local file access (``safety/files.py``): receipts are read only inside
``SEVDESK_FILE_DIRS``, as regular files of a sniffed type and a capped size, never through a
symlink leaving the folders or a file swapped between check and open; the upload sends exactly
the bytes its preview hashed."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sevdesk_mcp.errors import FileAccessError
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.voucher_saves import files_of
from sevdesk_mcp.safety import files
from sevdesk_mcp.safety.files import FileAccess
from tests.receipts.helpers import MERCATURA_PDF, UPLOAD, receipt_folder, receipts_app
from tests.writes.tool_helpers import call, error_text, facts, writes

PDF = b"%PDF-1.4\n% a receipt\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def _access(folder: Path, **extra: Any) -> FileAccess:
    return FileAccess(folders=(Path(os.path.realpath(folder)),), **extra)


def _refused(access: FileAccess, given: str) -> str:
    with pytest.raises(FileAccessError) as caught:
        access.read(given)
    return str(caught.value)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    inside = tmp_path / "belege"
    inside.mkdir()
    (inside / "rechnung.pdf").write_bytes(PDF)
    (tmp_path / "secret.pdf").write_bytes(PDF)
    return inside


@pytest.mark.threat("FA01")
def test_a_file_inside_the_folder_is_read_with_its_sniffed_type(folder: Path) -> None:
    read = _access(folder).read("rechnung.pdf")
    assert (read.media_type, read.data, read.name) == ("application/pdf", PDF, "rechnung.pdf")
    assert _access(folder).read(str(folder / "rechnung.pdf")).sha256 == read.sha256


@pytest.mark.threat("FA02")
def test_dot_dot_is_refused_even_when_it_would_stay_inside(folder: Path) -> None:
    assert "'..'" in _refused(_access(folder), "../belege/rechnung.pdf")
    assert "'..'" in _refused(_access(folder), "../secret.pdf")


@pytest.mark.threat("FA03")
def test_absolute_paths_outside_the_folders_are_refused(folder: Path) -> None:
    text = _refused(_access(folder), str(folder.parent / "secret.pdf"))
    assert "outside the folders" in text and "SEVDESK_FILE_DIRS" in text
    assert "outside the folders" in _refused(_access(folder), "/etc/passwd")


@pytest.mark.threat("FA04")
def test_a_symlink_leading_out_of_the_folder_is_refused(folder: Path) -> None:
    (folder / "link.pdf").symlink_to(folder.parent / "secret.pdf")
    (folder / "dir").symlink_to(folder.parent)
    assert "outside the folders" in _refused(_access(folder), "link.pdf")
    assert "outside the folders" in _refused(_access(folder), "dir/secret.pdf")


@pytest.mark.threat("FA04")
def test_a_symlink_staying_inside_the_folder_is_followed(folder: Path) -> None:
    (folder / "alias.pdf").symlink_to(folder / "rechnung.pdf")
    assert _access(folder).read("alias.pdf").data == PDF


def _swap_before_open(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    real_open = os.open

    def racing_open(path: Any, flags: int, *args: Any) -> int:
        swap()  # the attacker wins the race: after the checks, before the open
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", racing_open)


@pytest.mark.threat("FA05")
def test_a_symlink_swapped_in_between_check_and_open_is_refused(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = folder / "rechnung.pdf"

    def swap() -> None:
        target.unlink()
        target.symlink_to(folder.parent / "secret.pdf")

    _swap_before_open(monkeypatch, swap)
    assert "changed while it was being read" in _refused(_access(folder), "rechnung.pdf")


@pytest.mark.threat("FA05")
def test_a_file_replaced_between_check_and_open_is_refused(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = folder / "rechnung.pdf"

    def swap() -> None:
        other = folder / "other.pdf"
        other.write_bytes(PDF + b"changed")
        other.replace(target)  # a new inode under the checked name

    _swap_before_open(monkeypatch, swap)
    assert "changed while it was being read" in _refused(_access(folder), "rechnung.pdf")


@pytest.mark.threat("FA06")
def test_fifos_devices_and_folders_are_refused(folder: Path) -> None:
    os.mkfifo(folder / "pipe.pdf")
    assert "no regular file" in _refused(_access(folder), "pipe.pdf")  # and it did not hang
    (folder / "sub").mkdir()
    assert "a folder" in _refused(_access(folder), "sub")
    dev = _access(Path("/dev"))
    assert "no regular file" in _refused(dev, "/dev/null")


@pytest.mark.threat("FA07")
def test_the_content_decides_the_type_never_the_name(folder: Path) -> None:
    (folder / "scan.png").write_bytes(PDF)
    text = _refused(_access(folder), "scan.png")
    assert "named .png but its content is a PDF" in text
    (folder / "script.pdf").write_bytes(b"#!/bin/sh\nrm -rf /\n")
    assert "not a PDF, PNG, JPEG or XML" in _refused(_access(folder), "script.pdf")
    (folder / "beleg").write_bytes(PNG)
    assert _access(folder).read("beleg").name == "beleg.png"


@pytest.mark.threat("FA08")
def test_oversized_files_are_refused(folder: Path) -> None:
    (folder / "big.pdf").write_bytes(PDF + b"0" * 64)
    text = _refused(_access(folder, max_bytes=32), "big.pdf")
    assert "larger than" in text
    huge = folder / "huge.pdf"
    with huge.open("wb") as handle:
        handle.write(PDF)
        handle.truncate(files.MAX_FILE_BYTES + 1)  # sparse: no 20 MiB written
    assert "larger than 20 MiB" in _refused(_access(folder), "huge.pdf")


@pytest.mark.threat("FA09")
def test_without_folders_or_over_http_nothing_is_read(folder: Path) -> None:
    assert "SEVDESK_FILE_DIRS" in _refused(FileAccess(), "rechnung.pdf")
    remote = _refused(_access(folder, remote=True), "rechnung.pdf")
    assert "over HTTP" in remote and "no local folders" in remote


@pytest.mark.anyio
@pytest.mark.threat("FA10")
async def test_a_file_replaced_after_the_preview_is_refused_by_its_sha256(tmp_path: Path) -> None:
    fake = build_demo()
    folder = receipt_folder(tmp_path)
    app = receipts_app(fake, folder)
    preview = (await call(app, UPLOAD, path=MERCATURA_PDF, dryRun=True))["structuredContent"]
    sha = facts(preview["preview"])["SHA-256"]
    (folder / MERCATURA_PDF).write_bytes(PDF)  # replaced after the human saw the preview
    text = error_text(await call(app, UPLOAD, path=MERCATURA_PDF, sha256=sha))
    assert "not the file that was previewed" in text and sha in text
    assert writes(fake) == []


@pytest.mark.anyio
@pytest.mark.threat("FA10")
async def test_the_upload_sends_the_bytes_its_preview_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = build_demo()
    folder = receipt_folder(tmp_path)
    app = receipts_app(fake, folder)
    original = files.FileAccess.read

    def read_then_replace(self: FileAccess, given: str) -> files.LocalFile:
        local = original(self, given)
        (folder / MERCATURA_PDF).write_bytes(PDF)  # replaced between prepare and execute
        return local

    monkeypatch.setattr(files.FileAccess, "read", read_then_replace)
    done = (await call(app, UPLOAD, path=MERCATURA_PDF))["structuredContent"]
    (temp,) = files_of(fake.store).temp.values()
    assert temp.sha256 == done["result"]["sha256"] == facts(done["preview"])["SHA-256"]
    assert temp.size != len(PDF)  # the previewed file, not its replacement


@pytest.mark.threat("FA11")
def test_an_output_folder_that_cannot_take_the_file_is_a_clear_refusal(tmp_path: Path) -> None:
    gone = tmp_path / "removed"  # the folder was removed after the server started
    access = FileAccess(output_dir=gone)
    with pytest.raises(FileAccessError) as caught:
        access.deliver("../Rechnung 1.pdf", PDF)
    text = str(caught.value)
    assert "Rechnung_1.pdf" in text and "SEVDESK_OUTPUT_DIR" in text and "writable" in text
    assert not gone.exists()
