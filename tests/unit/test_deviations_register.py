"""The deviations register (``spec/DEVIATIONS.md``) stays true: its ids are unique, every table
row names a test, and every test it names (``tests/…py::test_name``, or a whole file) exists."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REGISTER = ROOT / "spec" / "DEVIATIONS.md"
ROW_ID = re.compile(r"^(?:\|\s*|-\s+)([A-Z]-\d{3})\b", re.MULTILINE)
TABLE_ROW = re.compile(r"^\|\s*([A-Z]-\d{3})\s*\|(.*)$", re.MULTILINE)
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?(?:\[[^\]`]*\])?`")


def _text() -> str:
    return REGISTER.read_text(encoding="utf-8")


@functools.cache
def _functions(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    return frozenset(node.name for node in ast.walk(tree) if isinstance(node, kinds))


def test_ids_are_unique() -> None:
    ids = ROW_ID.findall(_text())
    assert len(ids) > 100
    assert sorted({i for i in ids if ids.count(i) > 1}) == []


def test_every_table_row_names_a_test() -> None:
    rows = TABLE_ROW.findall(_text())
    assert len(rows) >= 90
    untested = [row_id for row_id, rest in rows if not REFERENCE.search(rest.rsplit("|", 2)[-2])]
    assert untested == []


def _references() -> list[tuple[str, str | None]]:
    return [(path, name or None) for path, name in REFERENCE.findall(_text())]


@pytest.mark.parametrize(("path", "name"), _references(), ids=str)
def test_every_named_test_exists(path: str, name: str | None) -> None:
    assert (ROOT / path).is_file(), f"{path} is named in the register but does not exist"
    if name is not None:
        assert name in _functions(path), f"{path} has no test {name}"


def test_the_reference_pattern_reads_the_register() -> None:
    found = _references()
    assert ("tests/fake/test_contacts.py", "test_create_answers_201_with_the_bare_object") in found
    assert ("tests/documents/test_followups.py", None) in found
