"""Property tests: the codec never raises, and valid requests round-trip."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sevdesk_mcp.mcp import jsonrpc

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    assert isinstance(jsonrpc.decode(data), jsonrpc.Message)


@settings(max_examples=300)
@given(
    st.dictionaries(
        st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]),
        json_values,
        max_size=6,
    )
)
def test_arbitrary_envelopes_never_raise(message: dict) -> None:
    decoded = jsonrpc.decode(json.dumps(message).encode())
    assert isinstance(decoded, jsonrpc.Message)
    if isinstance(decoded, jsonrpc.Rejected):
        error: Any = decoded.answer["error"]
        assert error["code"] in (-32700, -32600)


@given(
    st.one_of(st.integers(-(2**53) + 1, 2**53 - 1), st.text(max_size=128)),
    st.text(min_size=1, max_size=30),
    st.dictionaries(st.text(max_size=8), json_values, max_size=4),
)
def test_valid_requests_round_trip(request_id: int | str, method: str, params: dict) -> None:
    raw = jsonrpc.encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    assert jsonrpc.decode(raw) == jsonrpc.Request(request_id, method, params)
