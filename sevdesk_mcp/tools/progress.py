"""Progress and debug logs of one tool call, sent to the client while the call runs.

Every answered request to sevDesk moves the call's progress on by one step, and so does every
page of a long list, whose message says how many items have arrived (of how many, when sevDesk
said); a multi-step write reports each of its requests. The total stays open: how many requests a
call needs is known only as it goes. With a log level of ``debug`` each request is also logged
as method and path. Both reach the client only when it asked:
a ``progressToken`` for progress, ``logging/setLevel`` or the ``_meta`` log level for logs. Paths
never carry the token (it travels in a header), and the text passes the redactor anyway.

Notifications are best effort: a client that is gone must not turn a finished write into a
failure, so the first failed notification ends them for the call.
"""

from __future__ import annotations

import logging
from typing import Final

from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.safety.redact import REDACTOR

DEBUG: Final = "debug"
log = logging.getLogger("sevdesk_mcp.progress")


class CallObserver:
    """Watches the sevDesk requests of one tool call for ``request``'s client."""

    def __init__(self, request: RequestContext, tool: str) -> None:
        self._request = request
        self._tool = tool
        self._steps = 0
        self._silent = False

    async def answered(self, method: str, path: str) -> None:
        """Report the answered request as a step; log it at debug."""
        what = REDACTOR(f"{method} {path}")
        await self._send(f"{self._tool}: asked sevDesk {what}", what)

    async def listed(self, path: str, read: int, total: int | None) -> None:
        """Say how much of a long list has arrived."""
        of = f" of {total:,}" if total is not None else ""
        await self._send(f"{self._tool}: {read:,}{of} read from {path}", None)

    async def _send(self, message: str, logged: str | None) -> None:
        if self._silent:
            return
        try:
            if logged is not None:
                await self._request.log(DEBUG, {"tool": self._tool, "sevdesk": logged})
            # Concurrent reads report from several tasks: the step is counted and claimed with
            # no await in between, so every report gets its own, increasing number.
            self._steps += 1
            await self._request.report_progress(float(self._steps), message=message)
        except Exception as exc:  # best effort: the call's outcome stands whatever happens here
            self._silent = True
            log.debug("progress notifications for %s stopped: %s", self._tool, exc)
