"""MCP tools: ``define_tool``, the registry, and one module per toolset."""
