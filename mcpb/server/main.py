"""The Claude Desktop bundle's entry point: the command line of ``mcp-server-sevdesk``.

The bundle's ``pyproject.toml`` and ``uv.lock`` (written by ``scripts/packaging/build_mcpb.py``)
make ``uv run --frozen`` install the wheel inside the bundle with the locked versions of its
dependencies, each file checked against its hash in ``uv.lock``; this file only hands over to
its command line.
"""

import sys

from sevdesk_mcp.__main__ import main  # the command, after its time-zone check

if __name__ == "__main__":
    sys.exit(main())
