"""mcp-server-sevdesk: an MCP server for sevDesk that is read-only unless told otherwise."""

__version__ = "1.0.0"  # the one place the version is written; pyproject.toml reads it

__all__ = ["__version__"]
