"""``--demo``: the demo books (the fake sevDesk, built on first use) as the account of every
transport and auth mode, with their receipts and their export storage. The only part of the
server besides ``fake-sevdesk`` that imports the fake."""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.cli.run import PROG, freeze_long_lived, pacer_of, write_gate
from sevdesk_mcp.config import Config
from sevdesk_mcp.sevdesk.client import SevdeskClient

if TYPE_CHECKING:
    import httpx
    from httpx import AsyncBaseTransport as _Transport

    from sevdesk_mcp.cli.scaleout import SharedStores
    from sevdesk_mcp.fake import FakeSevdesk
else:

    class _Transport:
        """httpx's ``AsyncBaseTransport`` without importing httpx at start-up: the demo books'
        transports subclass it, and httpx, which only calls these methods, is imported with
        the first request (``sevdesk.client._Pool``)."""

        async def __aenter__(self) -> _Transport:
            return self

        async def __aexit__(self, *_: object) -> None:
            await self.aclose()

        async def aclose(self) -> None:
            return None


DEMO_API_URL: Final = "https://demo.sevdesk.invalid/api/v1"  # never resolved: served in memory


DEMO_BANNER: Final = (
    f"{PROG}: DEMO MODE. Serving invented books from memory; nothing here is real, and every "
    "change is gone when the server stops. Confirmations are still asked."
)


def demo_account(
    config: Config, shared: SharedStores | None = None, *, receipts: bool = False
) -> AccountContext:
    """:returns: the demo books' account; with ``receipts`` (stdio) and no
    ``SEVDESK_FILE_DIRS``, the demo receipt files are offered as the file folder."""
    from msgspec.structs import replace  # noqa: PLC0415

    from sevdesk_mcp.fake.token import DEMO_TOKEN  # noqa: PLC0415 - demo wiring only
    from sevdesk_mcp.safety.redact import Secret  # noqa: PLC0415

    if receipts and not config.file_dirs:
        config = replace(config, file_dirs=(_demo_receipts(),))
    demo_config = replace(config, api_url=DEMO_API_URL)
    books = demo_books()
    token, pacer = Secret(DEMO_TOKEN), pacer_of(config, shared, "demo")
    account = AccountContext(
        config=demo_config,
        client=SevdeskClient(
            base_url=DEMO_API_URL,
            token=token,
            gate=write_gate(config),
            pacer=pacer,
            transport=books,
        ),
        demo=True,
        today=lambda: books.fake().today,
    )
    print(DEMO_BANNER, file=sys.stderr)  # noqa: T201
    if not config.rehearse:
        return account
    # a rehearsal in front of the demo books, which stand in for the real account (to try one)
    from sevdesk_mcp.cli import rehearse  # noqa: PLC0415 - rehearsal only

    rehearsal = rehearse.rehearsal_of(
        books, config, today=account.today, api_url=DEMO_API_URL, token=token
    )
    rehearse.route_downloads(rehearsal, books.files())
    client = SevdeskClient(
        base_url=DEMO_API_URL,
        token=token,
        gate=write_gate(config),
        pacer=pacer,
        transport=rehearsal,
    )
    reader = rehearse.real_reader(rehearsal, DEMO_API_URL, token, pacer)
    rehearse.announce(config, "the demo books", PROG)
    return replace(account, client=client, rehearsal=rehearsal, real_reader=reader)


def demo_company() -> str:
    """:returns: the demo company's name (for the approval page's top line)."""
    from sevdesk_mcp.fake.demo import COMPANY  # noqa: PLC0415 - demo wiring only

    return COMPANY


def _demo_receipts() -> Path:
    """Write the demo receipts (supplier invoices as PDFs, one ZUGFeRD) into a private folder
    that is removed when the process ends.

    :returns: the folder, for ``SEVDESK_FILE_DIRS``.
    """
    from sevdesk_mcp.fake.demo_receipts import RECEIPTS, write_demo_receipts  # noqa: PLC0415

    base = Path(tempfile.mkdtemp(prefix="sevdesk-demo-"))  # mode 0700
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    folder = write_demo_receipts(base / "Belege")
    names = ", ".join(r.filename for r in RECEIPTS)
    print(f"{PROG}: demo receipts to file, in {folder}: {names}", file=sys.stderr)  # noqa: T201
    return folder


def demo_books() -> LazyDemoBooks:
    """:returns: the demo books, for every transport and auth mode alike; DATEV downloads of
    this process then reach their export storage, never the network (the fake's
    ``FileStorage``, built with the books). Set before the event loop starts, so every task
    sees it."""
    from sevdesk_mcp.sevdesk.download import FILE_TRANSPORT  # noqa: PLC0415 - demo wiring only

    books = LazyDemoBooks()
    FILE_TRANSPORT.set(books.files())
    return books


class LazyDemoBooks(_Transport):
    """The demo books as an httpx transport, built on the first request that needs them.

    Importing the fake and building the books takes about 35 ms; ``initialize`` and
    ``tools/list`` never need them, so start-up does not wait for them.
    """

    def __init__(self) -> None:
        self._fake: FakeSevdesk | None = None
        self._transport: httpx.AsyncBaseTransport | None = None

    def fake(self) -> FakeSevdesk:
        """:returns: the demo books, built on the first call.

        :raises RuntimeError: if :data:`DEMO_TOKEN` no longer matches the fake's token.
        """
        if self._fake is None:
            from sevdesk_mcp.fake import build_demo  # noqa: PLC0415 - demo wiring only

            self._fake = build_demo()
            freeze_long_lived()  # the books live as long as the process, too
        return self._fake

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the demo books' answer to ``request``."""
        if self._transport is None:
            self._transport = self.fake().transport()
        return await self._transport.handle_async_request(request)

    def files(self) -> httpx.AsyncBaseTransport:
        """:returns: the demo books' export file storage, built with the books on first use."""
        return _LazyFiles(self)


class _LazyFiles(_Transport):
    """The demo books' export file storage (DATEV downloads), built on the first download."""

    def __init__(self, books: LazyDemoBooks) -> None:
        self._books = books

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the stored export file, or the storage's 404."""
        from sevdesk_mcp.fake.exports import FileStorage  # noqa: PLC0415 - demo wiring only

        return await FileStorage(self._books.fake().store).handle_async_request(request)
