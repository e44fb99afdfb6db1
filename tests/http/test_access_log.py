"""The access log's way to stderr: straight to its own handler, through logging otherwise."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import msgspec
import pytest

from sevdesk_mcp.http.log import (
    LOGGER_NAME,
    AccessLineHandler,
    AccessLog,
    AccessRecord,
    install_access_logger,
)

RECORD = AccessRecord("POST", "/mcp", 200, 10, 0.001, "127.0.0.1", {"route": "/mcp"})


@pytest.fixture
def logger() -> Iterator[logging.Logger]:
    logger = logging.getLogger(LOGGER_NAME)
    saved = (logger.handlers, logger.level, logger.propagate, logger.filters)
    install_access_logger()
    yield logger
    logger.handlers, logger.level, logger.propagate, logger.filters = saved
    logger.disabled = False


def test_lines_reach_the_installed_handler_whole_and_one_per_line(logger: logging.Logger) -> None:
    stream = io.StringIO()
    logger.handlers = [AccessLineHandler(stream)]
    log = AccessLog()
    log.write(RECORD)
    log.write(RECORD)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and msgspec.json.decode(lines[0])["route"] == "/mcp"


def test_a_logger_set_up_otherwise_gets_log_records(
    logger: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    stream = io.StringIO()
    logger.handlers = [AccessLineHandler(stream)]
    logger.propagate = True  # the record must also reach the root's handlers (caplog)
    with caplog.at_level(logging.INFO, LOGGER_NAME):
        AccessLog().write(RECORD)
    assert stream.getvalue().count("\n") == 1
    assert [r.name for r in caplog.records] == [LOGGER_NAME]


def test_a_silenced_logger_writes_nothing(logger: logging.Logger) -> None:
    stream = io.StringIO()
    logger.handlers = [AccessLineHandler(stream)]
    logger.setLevel(logging.WARNING)
    AccessLog().write(RECORD)
    assert stream.getvalue() == ""


def test_a_failing_stream_is_reported_as_logging_reports_it_and_never_raises(
    logger: logging.Logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError("disk full")

    handler = AccessLineHandler(Broken())
    reported: list[logging.LogRecord] = []
    monkeypatch.setattr(handler, "handleError", reported.append)
    logger.handlers = [handler]
    AccessLog().write(RECORD)
    assert [r.getMessage().startswith("{") for r in reported] == [True]
