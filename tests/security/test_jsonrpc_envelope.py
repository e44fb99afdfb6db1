"""Threat case J06: a key written twice is refused, also when one spelling uses escapes.

Issue 12, finding 4: ``{"jsonrpc":"2.0","id":35,"\\u0069d":36,...}`` was answered as id 36, and
``"method":"tools/list","\\u006dethod":"tools/call"`` ran ``tools/call`` (over stdio, and over
HTTP when ``Mcp-Method`` said ``tools/call``): the cheap screen looked for the literal spelling
of the envelope keys only. Keys are now compared after unescaping, in the message object and in
the objects the dispatcher reads (``params``, ``params._meta``, ``params.arguments``, ...), and
an ``Mcp-*`` header sent on two lines is refused instead of taking the first.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sevdesk_mcp.mcp import jsonrpc
from tests.fixture_app import fixture_app
from tests.http.helpers import META, http, modern_body, modern_headers, running
from tests.wire import meta, open_wire

pytestmark = pytest.mark.anyio

META_JSON = json.dumps(meta())
CALL_ECHO = '"params":{"name":"echo","arguments":{"text":"ran"},"_meta":' + META_JSON + "}"


def _escaped(key: str, positions: set[int] | None = None) -> str:
    """:returns: ``key`` as JSON string text, the characters at ``positions`` (all when
    ``None``) written as ``\\uXXXX``."""
    chars = [
        _u_escape(c) if positions is None or i in positions else json.dumps(c)[1:-1]
        for i, c in enumerate(key)
    ]
    return '"' + "".join(chars) + '"'


def _u_escape(char: str) -> str:
    """:returns: ``char`` as ``\\uXXXX``, or as a surrogate pair beyond the first plane."""
    units = char.encode("utf-16-be")
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


def _refusal(raw: bytes) -> dict[str, Any]:
    decoded = jsonrpc.decode(raw)
    assert isinstance(decoded, jsonrpc.Rejected), decoded
    error: dict[str, Any] = decoded.answer["error"]  # type: ignore[assignment]
    assert error["code"] == -32600
    return {"id": decoded.answer["id"], "message": error["message"]}


# --- the two reproductions of the finding, over the real stdio transport ---


@pytest.mark.threat("J06")
async def test_an_escaped_second_id_is_refused_not_answered_as_the_last_id() -> None:
    line = (
        '{"jsonrpc":"2.0","id":35,"\\u0069d":36,"method":"tools/list","params":{"_meta":'
        + META_JSON
        + "}}\n"
    )
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw(line.encode())
        answer = await wire.recv()
        assert "result" in await wire.modern("tools/list")  # the stream still serves
    assert answer["id"] is None
    assert answer["error"]["code"] == -32600
    assert '"id" more than once' in answer["error"]["message"]


@pytest.mark.threat("J06")
async def test_an_escaped_second_method_does_not_run_tools_call_over_stdio() -> None:
    line = '{"jsonrpc":"2.0","id":7,"method":"tools/list","\\u006dethod":"tools/call",'
    async with open_wire(fixture_app()) as wire:
        await wire.send_raw((line + CALL_ECHO + "}\n").encode())
        answer = await wire.recv()
        assert await wire.nothing_within(0.1)
    assert answer == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": answer["error"]["message"]},
    }
    assert '"method" more than once' in answer["error"]["message"]
    assert "send every key once" in answer["error"]["message"]


@pytest.mark.threat("J06")
async def test_an_escaped_second_method_does_not_run_tools_call_over_http() -> None:
    body = '{"jsonrpc":"2.0","id":7,"method":"tools/list","\\u006dethod":"tools/call",' + (
        CALL_ECHO + "}"
    )
    async with running() as server, http(server) as client:
        response = await client.post(
            "/mcp", content=body.encode(), headers=modern_headers("tools/call", "echo")
        )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600
    assert server.built == []  # no app was built: nothing was dispatched


# --- where keys are compared, and every way a key can be spelled twice ---


ENVELOPE = "the message object"
HEAD = '"jsonrpc":"2.0","id":1,"method":"m"'


@pytest.mark.threat("J06")
@pytest.mark.parametrize(
    ("raw", "where", "key", "echoed"),
    [
        ('{"jsonrpc":"2.0","id":1,"\\u0069\\u0064":2,"method":"m"}', ENVELOPE, "id", None),
        ('{"jsonrpc":"2.0","id":1,"\\u0069D":2,"\\u0069d":3,"method":"m"}', ENVELOPE, "id", None),
        ('{"jsonrpc":"2.0","id":1,"method":"m","\\u006D\\u0065thod":"n"}', ENVELOPE, "method", None),
        ('{"\\u006asonrpc":"1.0","jsonrpc":"2.0","id":1,"method":"m"}', ENVELOPE, "jsonrpc", None),
        ("{" + HEAD + ',"params":{},"p\\u0061rams":{}}', ENVELOPE, "params", None),
        ("{" + HEAD + ',"params":{"name":"a","n\\u0061me":"b"}}', "params", "name", 1),
        ("{" + HEAD + ',"params":{"uri":"a","\\u0075ri":"b"}}', "params", "uri", 1),
        ("{" + HEAD + ',"params":{"_meta":{"x":1,"\\u0078":2}}}', "params._meta", "x", 1),
        ("{" + HEAD + ',"params":{"arguments":{"a":1,"a":9}}}', "params.arguments", "a", 1),
        ("{" + HEAD + ',"params":{"arguments":{"a/b":1,"a\\/b":9}}}', "params.arguments", "a/b", 1),
        ("{" + HEAD + ',"params":{"arguments":{"\\n":1,"\\u000a":9}}}', "params.arguments", "\\n", 1),
        ("{" + HEAD + ',"params":{"arguments":{"\\u00fc":1,"ü":9}}}', "params.arguments", "ü", 1),
        ('{"jsonrpc":"2.0","id":"r","result":{"action":"no","\\u0061ction":"ok"}}', "result", "action", "r"),
    ],
)  # fmt: skip
def test_a_key_written_twice_is_refused_wherever_the_dispatcher_reads_it(
    raw: str, where: str, key: str, echoed: object
) -> None:
    refusal = _refusal(raw.encode())
    assert refusal["id"] == echoed  # no id when the envelope itself is ambiguous
    shown = json.loads(f'"{key}"')
    assert refusal["message"].startswith(f'Invalid request: {where} holds the key "{shown}" ')


@pytest.mark.threat("J06")
def test_the_refusal_shows_a_long_key_cut_short() -> None:
    key = "k" * 500
    raw = '{"jsonrpc":"2.0","id":1,"method":"m","params":{"%s":1,"%s":2}}' % (key, key)  # noqa: UP031
    message = _refusal(raw.encode())["message"]
    assert f'"{"k" * 64}..."' in message and "k" * 65 not in message


@pytest.mark.threat("J06")
@pytest.mark.parametrize(
    "raw",
    [
        # the same key in different objects is no repetition
        '{"jsonrpc":"2.0","id":1,"method":"m","params":{"id":2,"arguments":{"id":3,"method":4}}}',
        # escapes without a repetition are ordinary text
        '{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"t":"M\\u00fcller \\/ x"}}}',
        '{"jsonrpc":"2.0","\\u0069d":1,"method":"m"}',
        # deeper than params.arguments the tools' own schemas decide (last value wins)
        '{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"a":{"b":1,"b":2}}}}',
        '{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"a":[{"b":1,"b":2}]}}}',
        # ... also when an escape sends the message through the second parse
        '{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"a":{"b":1,"\\u0062":2}}}}',
    ],
)
def test_messages_without_a_repeated_checked_key_are_accepted(raw: str) -> None:
    assert isinstance(jsonrpc.decode(raw.encode()), jsonrpc.Request)


# --- the cheap screen takes every path to the same answer ---


def _arguments_message(arguments: str) -> bytes:
    return (
        '{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{' + arguments + "}}}"
    ).encode()


@pytest.mark.threat("J06")
@pytest.mark.parametrize("escaped", [False, True])
def test_a_repetition_among_more_keys_than_the_screen_counts_is_refused(escaped: bool) -> None:
    many = ",".join(f'"k{i}":{i}' for i in range(jsonrpc.MAX_SCREENED_KEYS + 10))
    again = _escaped("k3") if escaped else '"k3"'
    assert isinstance(jsonrpc.decode(_arguments_message(many)), jsonrpc.Request)
    refusal = _refusal(_arguments_message(f"{many},{again}:0"))
    assert 'params.arguments holds the key "k3"' in refusal["message"]


@pytest.mark.threat("J06")
def test_a_repetition_in_a_message_too_large_to_screen_by_counting_is_refused() -> None:
    big = "x" * (jsonrpc.MAX_SCREENED_BYTES // 8)
    fields = ",".join(f'"f{i}":"{big}"' for i in range(10))
    assert isinstance(jsonrpc.decode(_arguments_message(fields)), jsonrpc.Request)
    refusal = _refusal(_arguments_message(f'{fields},"f9":1'))
    assert 'params.arguments holds the key "f9"' in refusal["message"]


@pytest.mark.threat("J06")
def test_a_message_the_second_parse_cannot_check_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def too_deep(*args: object, **kwargs: object) -> object:
        raise RecursionError  # what json raises a few frames deeper than msgspec's own limit

    monkeypatch.setattr(json, "loads", too_deep)  # the module the codec's second parse uses
    refusal = _refusal(b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"\\u0041"}}')
    assert "nested too deep" in refusal["message"] and refusal["id"] is None


_key_text = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12)


@pytest.mark.threat("J06")
@settings(max_examples=300, deadline=None)
@given(keys=st.lists(_key_text, min_size=1, max_size=8, unique=True), data=st.data())
def test_any_spelling_of_a_repeated_argument_key_is_refused(
    keys: list[str], data: st.DataObject
) -> None:
    repeated = data.draw(st.sampled_from(keys))
    positions = data.draw(st.sets(st.integers(0, len(repeated) - 1)))
    pairs = [f"{json.dumps(k, ensure_ascii=False)}:{i}" for i, k in enumerate(keys)]
    pairs.insert(data.draw(st.integers(0, len(pairs))), f"{_escaped(repeated, positions)}:-1")
    raw = _arguments_message(",".join(pairs))
    refusal = _refusal(raw)
    assert refusal["message"].startswith('Invalid request: params.arguments holds the key "')


# --- two lines of one MCP header over HTTP ---


@pytest.mark.threat("J06")
@pytest.mark.parametrize(
    ("name", "first", "second"),
    [
        ("Mcp-Name", "echo", "boom"),
        ("Mcp-Name", "echo", "echo"),
        ("Mcp-Method", "tools/call", "tools/list"),
        ("MCP-Protocol-Version", "2026-07-28", "2025-11-25"),
        ("Mcp-Session-Id", "a", "b"),
    ],
)
async def test_an_mcp_header_sent_twice_is_refused_not_read_from_its_first_line(
    name: str, first: str, second: str
) -> None:
    body = modern_body("tools/call", {"name": "echo", "arguments": {"text": "ran"}})
    headers = [(k, v) for k, v in modern_headers("tools/call", "echo").items() if k != name.lower()]
    headers += [(name, first), (name.lower(), second)]
    async with running() as server, http(server) as client:
        response = await client.post("/mcp", content=json.dumps(body), headers=headers)
        again = await client.post(
            "/mcp", content=json.dumps(body), headers=modern_headers("tools/call", "echo")
        )
    assert response.status_code == 400
    answer = response.json()
    assert answer["error"]["code"] == -32600 and answer["id"] is None
    assert f"the {name.lower()} header is sent 2 times" in answer["error"]["message"]
    assert "send each MCP header once" in answer["error"]["message"]
    assert again.json()["result"]["content"][0]["text"] == "ran"  # only the refused one
    assert len(server.built) == 1


@pytest.mark.threat("J06")
async def test_a_notification_with_an_mcp_header_sent_twice_is_refused_too() -> None:
    body = {"jsonrpc": "2.0", "method": "notifications/initialized", "params": {"_meta": META}}
    headers = [("content-type", "application/json"), ("mcp-method", "a"), ("mcp-method", "b")]
    async with running() as server, http(server) as client:
        response = await client.post("/mcp", content=json.dumps(body), headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600
