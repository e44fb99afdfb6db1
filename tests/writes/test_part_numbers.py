"""The next free article number: sevDesk has no endpoint for it, so it is computed from the
numbers there are (issue 14, point 7)."""

from __future__ import annotations

import pytest

from sevdesk_mcp.domain.parts.numbers import next_part_number
from sevdesk_mcp.errors import ToolError


@pytest.mark.parametrize(
    ("numbers", "expected", "highest"),
    [
        (["HS-1001", "HS-4002", "HS-2003"], "HS-4003", "HS-4002"),
        (["1001", "998", None, "Versand"], "1002", "1001"),
        (["A-0099", "a-0007"], "A-0100", "A-0099"),
        (["ART-9", "ART-10"], "ART-11", "ART-10"),
        (["2024-001", "2024-017"], "2024-018", "2024-017"),
        (["  HS-5 "], "HS-6", "HS-5"),
    ],
)
def test_the_highest_number_of_the_one_pattern_plus_one(
    numbers: list[str | None], expected: str, highest: str
) -> None:
    found = next_part_number(numbers)
    assert (found.number, found.highest) == (expected, highest)


@pytest.mark.parametrize(
    ("numbers", "expected"),
    [
        ([], "No article has a number ending in digits"),
        (["Versand", None, ""], "No article has a number ending in digits"),
        (["HS-1", "DL-2", "7"], "follow 3 patterns (DL-…, HS-…, digits only)"),
    ],
)
def test_no_single_pattern_is_refused_asking_for_a_number(
    numbers: list[str | None], expected: str
) -> None:
    with pytest.raises(ToolError) as raised:
        next_part_number(numbers)
    assert expected in str(raised.value) and "give part_number" in str(raised.value)
