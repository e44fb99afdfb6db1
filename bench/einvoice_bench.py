"""Parse-and-check time per e-invoice file: this server's reader against ``factur-x`` and
``drafthorse`` on the same files.

Run by hand: ``python bench/einvoice_bench.py [folder ...]`` (default: the project's generated
fixtures and, when present, the shared samples next to the checkout). The peers are bench-only:
install them into a throwaway environment by hand (``pip install factur-x drafthorse``); a peer
that is not installed is skipped and named. Goals (issue 20): at least 3x faster than both for
XML, no slower for PDFs.

What is timed (median of :data:`ROUNDS` runs per file; a peer that fails on a file shows ``-``
and is left out of the sums):

- ``ours``: the safe read (PDF attachment, XML, the invoice model) and every EN 16931 and
  XRechnung rule (``check(read_bytes(data).invoice)``).
- ``factur-x read``: factur-x reading the invoice into its data model, without its XSD check
  (``parse_ubl_cii_xml(..., check_xsd=False)``, after ``get_xml_from_pdf(..., check_xsd=False)``
  for a PDF): the same work as ours less the rules.
- ``factur-x +xsd``: the same with factur-x's own check, its XSD validation (its defaults).
- ``factur-x extract``: PDFs only, the attachment taken out and parsed by lxml, nothing read
  from it (``get_xml_from_pdf(..., check_xsd=False)``): less than a read, shown for reference.
- ``drafthorse``: ``Document.parse`` into its object model (CII only), after the XML was taken
  out of a PDF by our reader.

Sums per kind (XML, PDF) over the files every column read, and ours as a multiple of each.
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

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


def facturx_runners() -> dict[str, Runner | None]:
    try:
        import facturx  # type: ignore[import-not-found]
    except ImportError:
        return {"factur-x read": None, "factur-x +xsd": None, "factur-x extract": None}
    logging.getLogger("factur-x").setLevel(logging.CRITICAL)  # it logs every file it reads

    def xml_of(data: bytes, xsd: bool) -> Any:
        if not data.startswith(b"%PDF"):
            return data
        return facturx.get_xml_from_pdf(data, check_xsd=xsd)[1]

    def read(xsd: bool) -> Runner:
        return lambda data: facturx.parse_ubl_cii_xml(xml_of(data, xsd), check_xsd=xsd)

    def extract(data: bytes) -> object:
        if not data.startswith(b"%PDF"):
            raise ValueError("PDFs only")
        return facturx.get_xml_from_pdf(data, check_xsd=False)

    return {"factur-x read": read(False), "factur-x +xsd": read(True), "factur-x extract": extract}


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
    """:returns: the median seconds of ``ROUNDS`` runs, or ``None`` if the runner fails on it."""
    took = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        try:
            run(data)
        except Exception:
            return None
        took.append(time.perf_counter() - started)
    return statistics.median(took)


def _cell(seconds: float | None) -> str:
    return f"{'-' if seconds is None else f'{seconds * 1000:.2f}':>16}"


def _sums(rows: list[tuple[str, float | None, list[float | None]]], names: list[str]) -> None:
    for kind in (".xml", ".pdf"):
        for index, name in enumerate(names):
            both = [
                (mine, cells[index])
                for file, mine, cells in rows
                if file.endswith(kind) and mine is not None and cells[index] is not None
            ]
            if not both:
                continue
            mine_sum = sum(m for m, _ in both)
            theirs_sum = sum(t for _, t in both if t is not None)
            print(
                f"{kind[1:].upper()}, {len(both):3d} files both read: ours {mine_sum * 1000:7.2f} "
                f"ms, {name} {theirs_sum * 1000:7.2f} ms: ours {theirs_sum / mine_sum:5.2f}x "
                "as fast"
            )


def main(argv: list[str]) -> int:
    folders = [Path(a) for a in argv[1:]] or [f for f in FOLDERS if f.is_dir()]
    files = sorted(p for f in folders for p in f.iterdir() if p.suffix in {".xml", ".pdf"})
    peers = {**facturx_runners(), "drafthorse": drafthorse_runner()}
    for name, runner in peers.items():
        if runner is None:
            print(f"{name}: not installed, skipped")
    names = list(peers)
    print(f"{'file':<52} {'ours ms':>8} " + " ".join(f"{n + ' ms':>16}" for n in names))
    rows = []
    for path in files:
        data = path.read_bytes()
        mine = timed(ours, data)
        cells = [timed(r, data) if r else None for r in peers.values()]
        rows.append((path.name, mine, cells))
        shown = "refused" if mine is None else f"{mine * 1000:.2f}"
        print(f"{path.name[:52]:<52} {shown:>8} " + " ".join(_cell(c) for c in cells))
    _sums(rows, names)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
