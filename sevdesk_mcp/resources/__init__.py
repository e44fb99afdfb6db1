"""MCP resources: document PDFs and reference data of the account."""
