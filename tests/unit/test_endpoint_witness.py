"""The endpoint witness (``tests/endpoint_witness.py``) names every write request and body
field outside the endpoint table; a planted entry of its ``SEEN`` proves it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import endpoint_witness
from tests.endpoint_witness import SEEN, outside_the_table


@pytest.fixture
def planted() -> Iterator[dict[tuple[str, str], set[str]]]:
    """``SEEN`` emptied for the test and restored after it, whatever the test did."""
    kept = dict(SEEN)
    SEEN.clear()
    try:
        yield SEEN
    finally:
        SEEN.clear()
        SEEN.update(kept)


def test_a_request_without_an_entry_is_named(planted: dict[tuple[str, str], set[str]]) -> None:
    planted[("POST", "/NoSuchResource/5/doSomething")] = set()
    assert outside_the_table() == [
        "POST /NoSuchResource/5/doSomething: no entry in sevdesk_mcp/sevdesk/endpoints.py"
    ]


def test_a_body_field_the_entry_does_not_send_is_named(
    planted: dict[tuple[str, str], set[str]],
) -> None:
    planted[("POST", "/Contact")] = {"name", "smuggled"}
    assert outside_the_table() == [
        "POST /Contact: body fields ['smuggled'] not in /Contact's sends"
    ]


def test_requests_inside_the_table_are_not_named(planted: dict[tuple[str, str], set[str]]) -> None:
    planted[("POST", "/Contact")] = {"name"}
    assert outside_the_table() == []
    assert endpoint_witness.SEEN is planted
