"""The Claude Desktop bundle's entry point: the command line of ``mcp-server-sevdesk``.

The bundle's ``pyproject.toml`` (written by ``scripts/packaging/build_mcpb.py``) makes ``uv``
install the wheel inside the bundle; this file only hands over to its command line.
"""

import sys

from sevdesk_mcp.cli import main

if __name__ == "__main__":
    sys.exit(main())
