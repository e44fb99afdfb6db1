"""How the approval page reaches the user's browser, seen from safety: what a listener must do.

Safety knows no sockets and no HTML. The page (``http.approval_page``, on the page kit) and the
:class:`PageListener` serving it are the HTTP stack's; the composition root makes them
(``http.approval_page.local_pages``) and hands them in as ``make`` (ADR 0016). One
:class:`SharedPages` per process holds the one site and its listener, started on first use:
listening on ``127.0.0.1`` and an ephemeral port only, and answering whatever the MCP transport
is doing.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Final, Protocol

import msgspec

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.approvals import ApprovalStore

NOT_STARTED: Final = (
    "The local approval page could not be started, so nothing can be approved. "
    "Check that this machine allows listening on 127.0.0.1. Nothing was changed."
)

NOT_WIRED: Final = (
    "Browser approval is not available here: no local approval page is wired into this "
    "server. Use a client that supports elicitation. Nothing was changed."
)


class PageServerError(ToolError):
    """The local approval page could not be started."""


class PageListener(Protocol):
    """Serves the approval site (a page app of ``http.pages``) on ``127.0.0.1`` and an
    ephemeral port."""

    @property
    def host(self) -> str:
        """``127.0.0.1:<port>``, the value every request's ``Host`` must have.

        :raises PageServerError: if the listener is not running.
        """
        ...

    def start(self) -> str:
        """Start listening unless it listens already.

        :returns: :attr:`host`.
        :raises PageServerError: if it cannot listen.
        """
        ...


class Stores(Protocol):
    """Where a safety runtime registers its approval store (the local site, or the inbox)."""

    def attach(self, store: ApprovalStore) -> None:
        """Serve the approvals of ``store`` (held weakly)."""
        ...


class ApprovalStores:
    """The approval stores the remote inbox serves (HTTP mode, held weakly).

    With the shared state every instance's safety runtime attaches the same Redis store, so
    the inbox of any instance shows and decides the approvals asked on any other.

    :param shared: a store to serve from the start (the shared state's; held strongly).
    """

    def __init__(self, shared: ApprovalStore | None = None) -> None:
        self._lock = threading.Lock()
        self._shared = shared
        self._stores: weakref.WeakSet[ApprovalStore] = weakref.WeakSet()

    def attach(self, store: ApprovalStore) -> None:
        """Serve the approvals of ``store``."""
        with self._lock:
            if store is not self._shared:
                self._stores.add(store)

    def stores(self) -> list[ApprovalStore]:
        """:returns: the stores attached and still alive (the shared one first)."""
        with self._lock:
            return [*([self._shared] if self._shared is not None else []), *self._stores]


class Pages(msgspec.Struct, frozen=True):
    """The approval site and the listener that serves it.

    :param inbox: in HTTP mode, the address of the approval inbox (``<public URL>/approvals``):
        the tool result names it, and no page link exists.
    """

    site: Stores
    server: PageListener
    inbox: str | None = None

    def link(self, approval_id: str) -> str:
        """:returns: the page link of an approval (secret: for the human, never the model).

        :raises PageServerError: if the listener is not running.
        """
        return f"http://{self.server.host}/a/{approval_id}"


Make = Callable[[], Pages]


class SharedPages:
    """The approval pages of a process: one site on one listener, started on first use.

    :param make: makes the site and its listener, not yet started (the composition root passes
        the HTTP stack's ``local_pages``; safety never imports it).
    """

    def __init__(self, make: Make) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._pages: Pages | None = None

    def __call__(self) -> Pages:
        """:returns: the pages, their listener started.

        :raises PageServerError: if the listener cannot listen.
        """
        with self._lock:
            if self._pages is None:
                self._pages = self._make()
            pages = self._pages
        pages.server.start()
        return pages
