"""``fake-sevdesk``: the fake sevDesk with the demo books, served on loopback (tests, demos and
trying a client without an account)."""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.errors import StartupError

FAKE_PORT: Final = 8089
FAKE_HOST: Final = "127.0.0.1"


def serve_fake(host: str | None, port: int | None) -> int:
    """Serve the fake sevDesk until interrupted; ``None`` takes the default host or port.

    :returns: 0.
    :raises StartupError: if the address is refused or cannot be bound.
    """
    from sevdesk_mcp.fake import run_fake_server  # noqa: PLC0415 - only this command needs it

    try:
        run_fake_server(FAKE_PORT if port is None else port, host or FAKE_HOST)
    except (ValueError, OSError) as exc:
        raise StartupError(str(exc)) from None
    return 0
