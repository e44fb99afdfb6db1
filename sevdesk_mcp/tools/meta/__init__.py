"""The server's own tools: status and permissions, the account, reference data."""
