"""Opening the approval page in the user's browser with the operating system's opener.

``xdg-open`` (Linux and other Unix), ``open`` (macOS) or ``cmd /c start`` (Windows), run
without a shell, only for links of the local approval page (checked against a strict pattern, so
nothing the model said can reach the command line). The opener is not waited for; failing to
open never fails the tool call: the link is in the server's log either way.
"""

from __future__ import annotations

import logging
import re
import subprocess
import sys
import threading
from typing import Final

PAGE_LINK: Final = re.compile(r"http://127\.0\.0\.1:[0-9]{1,5}/a/[A-Za-z0-9_-]{43}")

log = logging.getLogger("sevdesk_mcp.approvals")


def opener_command(url: str, platform: str = sys.platform) -> list[str]:
    """:returns: the command that opens ``url`` on ``platform``.

    :raises ValueError: if ``url`` is not a link of the local approval page.
    """
    if not PAGE_LINK.fullmatch(url):
        raise ValueError("only links of the local approval page are opened")
    if platform == "darwin":
        return ["open", url]
    if platform == "win32":
        return ["cmd", "/c", "start", "", url]
    return ["xdg-open", url]


def open_url(url: str) -> bool:
    """Ask the operating system to open ``url`` in the default browser.

    :returns: whether the opener could be started (not whether a browser showed the page).
    :raises ValueError: if ``url`` is not a link of the local approval page.
    """
    command = opener_command(url)
    try:
        process = subprocess.Popen(  # noqa: S603 - fixed opener, checked link, no shell
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        log.info("Could not open the approval page with %s (%s)", command[0], exc.strerror)
        return False
    threading.Thread(target=process.wait, name="sevdesk-opener", daemon=True).start()
    return True
