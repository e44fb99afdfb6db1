"""The MCP conformance suite's fixture server: its tools, prompts and resources on our core."""
