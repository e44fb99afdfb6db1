"""``--http`` raises its soft limit of open files so the configured connections fit (issue 38)."""

from __future__ import annotations

import logging
import resource

import pytest

from sevdesk_mcp.cli.http import FILES_BESIDE_CONNECTIONS, open_files_for


def _limits(monkeypatch: pytest.MonkeyPatch, soft: int, hard: int) -> list[tuple[int, int]]:
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (soft, hard))
    monkeypatch.setattr(resource, "setrlimit", lambda _which, pair: calls.append(pair))
    return calls


def test_the_soft_limit_is_raised_to_what_the_connections_need(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _limits(monkeypatch, 1024, 65536)
    open_files_for(1024)
    assert calls == [(1024 + FILES_BESIDE_CONNECTIONS, 65536)]


def test_a_soft_limit_that_suffices_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _limits(monkeypatch, 4096, 4096)
    open_files_for(256)
    assert calls == []


def test_a_hard_limit_too_low_is_used_and_named_on_the_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls = _limits(monkeypatch, 256, 512)
    with caplog.at_level(logging.WARNING, logger="sevdesk_mcp"):
        open_files_for(1024)
    assert calls == [(512, 512)]
    assert "SEVDESK_HTTP_MAX_CONNECTIONS=1024" in caplog.text and "ulimit -Hn" in caplog.text
