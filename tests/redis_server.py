"""A real Redis server for the tests of the shared state (Debian's ``redis-server``).

:func:`redis_url` gives the URL of a server: ``SEVDESK_TEST_REDIS_URL`` if CI started one,
otherwise one this module starts on a free loopback port (stopped at exit). Without either the
tests skip, naming the package to install; with ``SEVDESK_TEST_REDIS_REQUIRED=1`` (CI) they
fail instead.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, NoReturn

import pytest

from tests import wire

HANG_GUARD_S = wire.HANG_GUARD_S  # the one guard against a hang, never a timing assertion
MISSING: Final = (
    "no Redis server: install Debian's redis-server package (CI does) or set "
    "SEVDESK_TEST_REDIS_URL to a disposable server"
)


def free_port() -> int:
    """:returns: a loopback port free at the moment of asking."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class RedisProcess:
    """One ``redis-server`` on a loopback port, without persistence unless ``persist`` (an
    append-only file in its directory, so a restart finds the data again); it can be stopped
    and started again on the same port (fault tests)."""

    port: int = field(default_factory=free_port)
    persist: bool = False
    process: subprocess.Popen[bytes] | None = None
    directory: str = field(default_factory=lambda: tempfile.mkdtemp(prefix="redis-test-"))

    @property
    def url(self) -> str:
        """:returns: the server's URL."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisProcess:
        """Start the server and wait until it answers."""
        binary = shutil.which("redis-server")
        if binary is None:
            skip_or_fail()
        command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        appendonly = ["--appendonly", "yes", "--appendfsync", "always"] if self.persist else []
        command += appendonly or ["--appendonly", "no"]
        command += ["--dir", self.directory, "--loglevel", "warning"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + HANG_GUARD_S
        while not _answers(self.port):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                pytest.fail(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop the server (its data is gone unless ``persist``)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=HANG_GUARD_S)
        self.process = None


def skip_or_fail() -> NoReturn:
    """Skip the test without a Redis server, or fail in CI (``SEVDESK_TEST_REDIS_REQUIRED``)."""
    if os.environ.get("SEVDESK_TEST_REDIS_REQUIRED") == "1":
        pytest.fail(MISSING)
    pytest.skip(MISSING)


_SHARED: list[RedisProcess] = []


def redis_url() -> str:
    """:returns: the URL of the tests' shared Redis server (started once per run)."""
    given = os.environ.get("SEVDESK_TEST_REDIS_URL")
    if given:
        return given
    if not _SHARED:
        if shutil.which("redis-server") is None:
            skip_or_fail()
        server = RedisProcess().start()
        atexit.register(server.stop)
        atexit.register(shutil.rmtree, Path(server.directory), True)
        _SHARED.append(server)
    return _SHARED[0].url
