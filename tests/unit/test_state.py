"""The request-state codec: sealed, bound, expiring, opaque on failure."""

from __future__ import annotations

import pytest

from sevdesk_mcp.errors import InvalidRequestStateError
from sevdesk_mcp.mcp.state import Binding, RequestStateCodec, canonical_digest

BINDING = Binding("tools/call", "sevdesk_x", "local", canonical_digest({"a": 1}))


def test_state_round_trips_and_hides_its_content() -> None:
    codec = RequestStateCodec()
    token = codec.seal({"nonce": "abc", "n": [1, 2]}, BINDING)
    assert "nonce" not in token and token.startswith("v1.")
    assert codec.open(token, BINDING) == {"nonce": "abc", "n": [1, 2]}


def test_canonical_digest_ignores_key_order() -> None:
    assert canonical_digest({"a": 1, "b": [2]}) == canonical_digest({"b": [2], "a": 1})
    assert canonical_digest({"a": 1}) != canonical_digest({"a": 2})


@pytest.mark.parametrize(
    "other",
    [
        Binding("prompts/get", "sevdesk_x", "local", BINDING.arguments_digest),
        Binding("tools/call", "sevdesk_y", "local", BINDING.arguments_digest),
        Binding("tools/call", "sevdesk_x", "account-2", BINDING.arguments_digest),
        Binding("tools/call", "sevdesk_x", "local", canonical_digest({"a": 2})),
    ],
)
def test_state_bound_elsewhere_is_refused(other: Binding) -> None:
    codec = RequestStateCodec()
    with pytest.raises(InvalidRequestStateError):
        codec.open(codec.seal(None, BINDING), other)


def test_expiry_follows_the_injected_clock() -> None:
    now = [100.0]
    codec = RequestStateCodec(clock=lambda: now[0], ttl_s=600)
    token = codec.seal(1, BINDING)
    now[0] = 700.0
    assert codec.open(token, BINDING) == 1
    now[0] = 701.0
    with pytest.raises(InvalidRequestStateError):
        codec.open(token, BINDING)


def test_a_fixed_key_opens_across_codec_instances() -> None:
    key = bytes(range(32))
    token = RequestStateCodec(key).seal("s", BINDING)
    assert RequestStateCodec(key).open(token, BINDING) == "s"
    with pytest.raises(InvalidRequestStateError):
        RequestStateCodec(bytes(32)).open(token, BINDING)


@pytest.mark.parametrize(
    "token", [None, 5, "", "v1.", "v1.!!!", "v1.AAAA", "v0.abc", "v1." + "A" * 40]
)
def test_malformed_tokens_are_refused_with_the_same_error(token: object) -> None:
    with pytest.raises(InvalidRequestStateError) as info:
        RequestStateCodec().open(token, BINDING)
    assert info.value.code == -32602
    assert info.value.data == {"reason": "invalid_request_state"}
