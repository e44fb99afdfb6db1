"""Parse-and-check time per e-invoice file: this server's reader against ``factur-x`` and
``drafthorse`` on the same files.

Run by hand: ``python bench/einvoice_bench.py [folder ...]`` (default: the project's generated
fixtures and, when present, the shared samples next to the checkout). The peers are bench-only:
install them into a throwaway environment by hand; a peer that is not installed is skipped and
named. Goals (issue 20): at least 3x faster than both for XML, no slower for PDFs. What is
timed for each: ours reads (safely) and runs every rule; factur-x extracts the XML from a PDF
and parses it with lxml (its ``get_xml_from_pdf`` / ``get_facturx_xml_type_from_xml``);
drafthorse parses CII into its object model (``Document.parse``), after the XML was taken out
of a PDF by pypdf. Neither peer checks the EN 16931 business rules, so ours does more work.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sevdesk_mcp.domain.einvoice.check import check
from sevdesk_mcp.domain.einvoice.pdf import invoice_xml
from sevdesk_mcp.domain.einvoice.read import read_bytes

ROOT: Final = Path(__file__).resolve().parent.parent
FOLDERS: Final = (ROOT / "fixtures" / "einvoice", ROOT.parent / "shared" / "fixtures" / "einvoice")
ROUNDS: Final = 20
Runner = Callable[[bytes], object]


def ours(data: bytes) -> object:
    return check(read_bytes(data).invoice)


def facturx_runner() -> Runner | None:
    try:
        import facturx  # type: ignore[import-not-found]
    except ImportError:
        return None

    def run(data: bytes) -> object:
        if data.startswith(b"%PDF"):
            _, xml = facturx.get_xml_from_pdf(data, check_xsd=False)
            return xml
        return facturx.get_facturx_xml_type_from_xml(data)

    return run


def drafthorse_runner() -> Runner | None:
    try:
        from drafthorse.models.document import Document  # type: ignore[import-not-found]
    except ImportError:
        return None

    def run(data: bytes) -> object:
        xml = invoice_xml(data)[1] if data.startswith(b"%PDF") else data
        return Document.parse(xml)

    return run


def timed(run: Runner, data: bytes) -> float | None:
    """:returns: the median seconds of ``ROUNDS`` runs, or ``None`` if the peer fails on it."""
    took = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        try:
            run(data)
        except Exception:
            return None
        took.append(time.perf_counter() - started)
    return statistics.median(took)


def main(argv: list[str]) -> int:
    folders = [Path(a) for a in argv[1:]] or [f for f in FOLDERS if f.is_dir()]
    files = sorted(p for f in folders for p in f.iterdir() if p.suffix in {".xml", ".pdf"})
    peers = {"factur-x": facturx_runner(), "drafthorse": drafthorse_runner()}
    for name, runner in peers.items():
        if runner is None:
            print(f"{name}: not installed, skipped")
    print(f"{'file':<58} {'ours ms':>8} " + " ".join(f"{n + ' ms':>14}" for n in peers))
    for path in files:
        data = path.read_bytes()
        mine = timed(ours, data)
        cells = []
        for runner in peers.values():
            theirs = timed(runner, data) if runner else None
            cells.append(f"{'-' if theirs is None else f'{theirs * 1000:.2f}':>14}")
        shown = "refused" if mine is None else f"{mine * 1000:.2f}"
        print(f"{path.name[:58]:<58} {shown:>8} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
