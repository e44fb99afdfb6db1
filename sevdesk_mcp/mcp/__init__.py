"""The MCP protocol core: JSON-RPC codec, both protocol eras, MRTR, stdio. No sevDesk code."""
