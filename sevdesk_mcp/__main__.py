"""``python -m sevdesk_mcp`` runs the same entry point as ``mcp-server-sevdesk``."""

from sevdesk_mcp.cli import main

if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    raise SystemExit(main())
