"""The MCP service over HTTP: the ``/mcp`` route (stateless, and 2025-era sessions with their
``GET`` stream), and the service that binds it with the router, the listeners and the shared
state (``serve.py``)."""
