"""The suite's own e-invoices (``scripts/make_einvoice_fixtures.py``): each variant trips
exactly the rules it breaks, in both syntaxes and as ZUGFeRD PDF; the files are current."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Final

import pytest

from sevdesk_mcp.domain.einvoice.check import check
from sevdesk_mcp.domain.einvoice.read import read_bytes

ROOT: Final = Path(__file__).resolve().parents[2]
FOLDER: Final = ROOT / "fixtures" / "einvoice"
with (FOLDER / "MANIFEST.tsv").open(encoding="utf-8", newline="") as handle:
    ROWS: Final = list(csv.DictReader(handle, delimiter="\t"))


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_einvoice_fixtures", ROOT / "scripts" / "make_einvoice_fixtures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["file"])
def test_each_variant_trips_exactly_its_rules(row: dict[str, str]) -> None:
    result = check(read_bytes((FOLDER / row["file"]).read_bytes()).invoice)
    fatal = {f.rule for f in result.findings if f.severity == "error"}
    assert fatal == set(filter(None, row["expected_rule_violations"].split(",")))


def test_every_variant_exists_in_both_syntaxes() -> None:
    names = {row["file"].split(".")[0] for row in ROWS}
    assert len([r for r in ROWS if r["syntax"] in {"ubl", "cii"}]) == 2 * len(names)
    assert any(row["syntax"] == "pdf" for row in ROWS)


def test_the_committed_files_are_what_the_generator_writes(tmp_path: Path) -> None:
    _generator().generate(tmp_path)
    for made in sorted(tmp_path.iterdir()):
        assert made.read_bytes() == (FOLDER / made.name).read_bytes(), made.name
