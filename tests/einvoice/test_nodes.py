"""The readers' own look-up of plain child paths finds exactly what ElementTree's ``find`` and
``findall`` find, on every fixture and for every business-term path; other paths fall back."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

from sevdesk_mcp.domain.einvoice import cii, ubl
from sevdesk_mcp.domain.einvoice.findings import PATHS
from sevdesk_mcp.domain.einvoice.nodes import Node, steps
from sevdesk_mcp.domain.einvoice.safexml import parse

FOLDER: Final = Path(__file__).resolve().parents[2] / "fixtures" / "einvoice"
CII_ROOT: Final = "/rsm:CrossIndustryInvoice/"


def _paths(syntax: str) -> list[str]:
    if syntax == "ubl":
        return sorted({u for u, _ in PATHS.values()} | {"cac:InvoiceLine/cac:Item/cbc:Name"})
    return sorted({c.removeprefix(CII_ROOT) for _, c in PATHS.values()})


@pytest.mark.parametrize("file", sorted(FOLDER.glob("*.xml")), ids=lambda p: p.name)
def test_the_same_elements_as_elementtree(file: Path) -> None:
    syntax = file.name.split(".")[-2]
    namespaces = ubl.NS if syntax == "ubl" else cii.NS
    root = parse(file.read_bytes())
    node = Node(root, namespaces)
    for path in _paths(syntax):
        assert steps(path, namespaces) is not None, path
        assert node.find(path) is root.find(path, dict(namespaces)), path
        assert node.all(path) == root.findall(path, dict(namespaces)), path
        assert [n.el for n in node.nodes(path)] == node.all(path), path


@pytest.mark.parametrize("path", [".", "*", "cbc:ID[1]", "//cbc:ID", "x:ID", "a//b", ""])
def test_anything_but_a_chain_of_child_names_falls_back(path: str) -> None:
    assert steps(path, ubl.NS) is None
