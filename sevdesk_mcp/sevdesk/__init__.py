"""The sevDesk HTTP client. It knows sevDesk's wire format and nothing of MCP."""
