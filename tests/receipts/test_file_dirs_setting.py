"""``SEVDESK_FILE_DIRS``: absolute, existing folders, kept as their real paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import ConfigError


def test_folders_are_resolved_and_deduplicated(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "a")
    value = os.pathsep.join([str(tmp_path / "a"), str(tmp_path / "link")])
    config = load_config({"SEVDESK_FILE_DIRS": value})
    assert config.file_dirs == (Path(os.path.realpath(tmp_path / "a")),)
    assert load_config({}).file_dirs == ()


@pytest.mark.parametrize("value", ["relative/dir", "/does/not/exist", "/tmp/../etc"])
def test_bad_folders_are_refused_by_name(value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config({"SEVDESK_FILE_DIRS": value})
    assert "SEVDESK_FILE_DIRS" in str(caught.value)
