"""mcp-server-sevdesk: an MCP server for sevDesk that is read-only unless told otherwise."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mcp-server-sevdesk")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without metadata
    __version__ = "0.0.0"

__all__ = ["__version__"]
