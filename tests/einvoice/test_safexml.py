"""Both ways of building the tree in :mod:`safexml` build the same tree from every sample."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sevdesk_mcp.domain.einvoice import safexml
from sevdesk_mcp.domain.einvoice.pdf import invoice_xml
from sevdesk_mcp.errors import EInvoiceRefusedError
from tests.einvoice.samples import SHARED

OWN = Path(__file__).resolve().parents[2] / "fixtures" / "einvoice"


def _files() -> list[Path]:
    folders = [f for f in (OWN, SHARED) if f.is_dir()]
    return sorted(p for f in folders for p in f.iterdir() if p.suffix in {".xml", ".pdf"})


def _xml(path: Path) -> bytes:
    data = path.read_bytes()
    return invoice_xml(data)[1] if data.startswith(b"%PDF") else data


def _shape(element: ET.Element) -> list[tuple[str, dict[str, str], str | None, str | None]]:
    return [(e.tag, dict(e.attrib), e.text, e.tail) for e in element.iter()]


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_the_fast_tree_is_the_defused_tree(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _xml(path)
    assert data.count(b"<") <= safexml.FAST_ELEMENTS  # the fast way is the one taken
    fast = safexml.parse(data)
    monkeypatch.setattr(safexml, "FAST_ELEMENTS", -1)
    assert _shape(fast) == _shape(safexml.parse(data))


def test_the_depth_limit_is_the_same_on_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    deepest = b"<a>" * safexml.MAX_DEPTH + b"</a>" * safexml.MAX_DEPTH
    for fast in (safexml.FAST_ELEMENTS, -1):
        monkeypatch.setattr(safexml, "FAST_ELEMENTS", fast)
        assert safexml.parse(deepest).tag == "a"
        with pytest.raises(EInvoiceRefusedError) as caught:
            safexml.parse(b"<b>" + deepest + b"</b>")
        assert caught.value.reason == "depth"
