"""A minimal Chrome DevTools Protocol driver for Debian's chromium, over ``--remote-debugging-pipe``.

No WebDriver and no Python package: chromium reads commands from descriptor 3 and writes
answers to descriptor 4, each a JSON object ending in a NUL byte.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Self

from tests import wire

HANG_GUARD_S = wire.HANG_GUARD_S  # the one guard against a hang, never a timing assertion
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
]


def _high(pair: tuple[int, int]) -> tuple[int, int]:
    """:returns: copies of both descriptors numbered 10 or higher; the originals are closed."""
    high = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in pair)
    for fd in pair:
        os.close(fd)
    return high[0], high[1]


class Chromium:
    """One headless chromium with a fresh profile; a context manager."""

    def __init__(self, profile: Path, timeout: float = HANG_GUARD_S) -> None:
        assert CHROMIUM is not None
        self._timeout = timeout
        commands_read, self._commands = _high(os.pipe())
        self._answers, answers_write = _high(os.pipe())
        # chromium speaks on descriptors 3 and 4: bash moves the pipe ends (all >= 10, so
        # neither is clobbered) there; no preexec_fn, which is unsafe with threads running
        remap = f'exec "$@" 3<&{commands_read} 4>&{answers_write}'
        command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"]
        self._process = subprocess.Popen(
            ["/bin/bash", "-c", remap, "bash", *command],
            pass_fds=(commands_read, answers_write),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(commands_read)
        os.close(answers_write)
        self._buffer = b""
        self._ids = 0
        self._session: str | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.command("Browser.close", session=False)
        except (OSError, AssertionError):
            self._process.kill()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(HANG_GUARD_S)
        os.close(self._commands)
        os.close(self._answers)

    def command(
        self, method: str, session: bool = True, check: bool = True, **params: Any
    ) -> dict[str, Any]:
        """Send one command and wait for its answer (events in between are dropped); an error
        answer fails the test when ``check``, else it is returned as ``{}``."""
        self._ids += 1
        message: dict[str, Any] = {"id": self._ids, "method": method, "params": params}
        if session and self._session is not None:
            message["sessionId"] = self._session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._receive()
            if answer.get("id") == self._ids:
                assert not check or "error" not in answer, answer
                result: dict[str, Any] = answer.get("result", {})
                return result

    def open(self, url: str) -> None:
        """Open ``url`` in a new tab and attach to it."""
        target = self.command("Target.createTarget", session=False, url=url)["targetId"]
        attached = self.command(
            "Target.attachToTarget", session=False, targetId=target, flatten=True
        )
        self._session = attached["sessionId"]

    def evaluate(self, expression: str, check: bool = True) -> Any:
        """:returns: the value of a JavaScript expression in the page (``None`` while the page
        is still loading and not ``check``)."""
        result = self.command(
            "Runtime.evaluate", check=check, expression=expression, returnByValue=True
        )
        return result.get("result", {}).get("value")

    def wait_for_text(self, text: str) -> str:
        """:returns: the page's text once it contains ``text``."""
        deadline = time.monotonic() + self._timeout
        while True:
            body = self.evaluate("document.body ? document.body.innerText : ''", False) or ""
            if text in body:
                return str(body)
            assert time.monotonic() < deadline, f"{text!r} did not appear; the page shows {body!r}"
            time.sleep(0.1)

    def screenshot(self, path: Path) -> None:
        import base64

        data = self.command("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def _receive(self) -> dict[str, Any]:
        deadline = time.monotonic() + self._timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._answers], [], [], max(left, 0))
            assert ready, "chromium did not answer in time"
            chunk = os.read(self._answers, 65536)
            assert chunk, "chromium closed its protocol pipe"
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed
