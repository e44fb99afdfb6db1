"""``python -m sevdesk_mcp`` and the ``mcp-server-sevdesk`` command.

Dates and moments are Europe/Berlin wherever sevDesk means them, so the time-zone data must be
there before the command line is loaded: without it (a system without ``tzdata``) the command
stops with one line saying how to get it, not with a traceback from the first module that
needs the zone. Importing the package never exits.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

EXIT_USAGE: Final = 2
NO_ZONE_DATA: Final = (
    "mcp-server-sevdesk: this system has no time-zone data for Europe/Berlin; install it "
    "(Debian/Ubuntu: sudo apt install tzdata; elsewhere: pip install tzdata) and start again\n"
)


def main(argv: Sequence[str] | None = None) -> int:
    """:returns: the command line's exit status; 2 without time-zone data."""
    try:
        ZoneInfo("Europe/Berlin")
    except ZoneInfoNotFoundError:
        sys.stderr.write(NO_ZONE_DATA)
        return EXIT_USAGE
    from sevdesk_mcp.cli import main as command_line  # noqa: PLC0415 - after the zone check

    return command_line(argv)


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    raise SystemExit(main())
