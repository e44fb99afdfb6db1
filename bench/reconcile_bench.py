"""Scoring time of the reconciliation scorer: n transactions against n open documents.

Run by hand: ``python bench/reconcile_bench.py``. Prints 1k, 5k and 20k (the target: 5,000 x
5,000 under 1 s, growing about linearly). The books come from the seeded labelled set.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sevdesk_mcp.domain.reconciliation.score import reconcile
from tests.reconciliation.labelled import labelled_set


def main() -> None:
    for size in (1_000, 5_000, 20_000):
        world = labelled_set(seed=size, size=size, distractors=0)
        txs, docs = [c.tx for c in world.cases][:size], world.docs[:size]
        started = time.perf_counter()
        verdicts = reconcile(txs, docs, world.parties)
        took = time.perf_counter() - started
        confident = sum(v.status == "confident" for v in verdicts)
        shape = f"{len(txs):>6} transactions x {len(docs):>6} documents"
        print(f"{shape}: {took:.3f} s ({confident} confident)")


if __name__ == "__main__":
    main()
