"""Print the bytes of each read tool's text content on the demo books, beside its budget.

    python bench/result_sizes.py

The numbers are the "measured" column of ``sevdesk_mcp/tools/budgets.py`` (docs/tools.md);
``tests/results`` checks the budgets.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sevdesk_mcp.tools.budgets import RESULT_BUDGETS
from tests.results.sizes import text_sizes


async def main() -> None:
    """Measure and print one line per read tool: name, bytes, budget."""
    for name, size in (await text_sizes()).items():
        budget = RESULT_BUDGETS.get(name, (0, 0))[0]
        sys.stdout.write(f"{name:34} {size:7,} {budget:7,}\n")


if __name__ == "__main__":
    anyio.run(main)
