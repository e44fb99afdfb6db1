"""mcp-server-sevdesk: an MCP server for sevDesk that is read-only unless told otherwise.

Dates and moments are Europe/Berlin wherever sevDesk means them, so the time-zone data must be
there before anything else is loaded: without it (a system without ``tzdata``) the process
stops with one line saying how to get it, not with a traceback from the first module that
needs the zone.
"""

import sys
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__version__ = "1.0.0"  # the one place the version is written; pyproject.toml reads it

__all__ = ["__version__"]

NO_ZONE_DATA = (
    "mcp-server-sevdesk: this system has no time-zone data for Europe/Berlin; install it "
    "(Debian/Ubuntu: sudo apt install tzdata; elsewhere: pip install tzdata) and start again\n"
)

try:
    ZoneInfo("Europe/Berlin")
except ZoneInfoNotFoundError:  # pragma: no cover - exercised through a subprocess test
    sys.stderr.write(NO_ZONE_DATA)
    raise SystemExit(2) from None
