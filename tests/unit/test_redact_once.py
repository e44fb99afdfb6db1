"""The one redactor: client text masked by pieces (remembered until a secret is added), and
answers checked and encoded once."""

from __future__ import annotations

import re
import secrets
from typing import Any

import msgspec
import pytest

from sevdesk_mcp.http.log import AccessLog, AccessRecord
from sevdesk_mcp.http.service.mcp_route import HttpPeer
from sevdesk_mcp.mcp import jsonrpc
from sevdesk_mcp.mcp.dispatcher import Connection, Dispatcher
from sevdesk_mcp.safety.redact import MASK, Redactor
from tests.fixture_app import fixture_app
from tests.http.helpers import META


@pytest.mark.threat("F02")
def test_a_text_masked_before_a_secret_was_added_is_masked_again_after() -> None:
    redactor = Redactor()
    secret = "Q" + secrets.token_urlsafe(40)
    text = "/mcp/" + secret[5:13]
    assert redactor.mask_client_text(text, 200) == text  # remembered as clean
    redactor.add(secret)
    assert redactor.mask_client_text(text, 200) == MASK  # the whole run, "/" included


@pytest.mark.threat("F02")
def test_every_registered_secret_lends_its_pieces_to_client_text() -> None:
    redactor = Redactor()
    redactor.add_key(bytes(range(32)))  # registered as hex and base64
    assert redactor.mask_client_text("a/" + bytes(range(32)).hex()[20:28], 200) == MASK
    for text in ("/mcp", "tools/call", "notifications/initialized", "-32602"):
        assert redactor.mask_client_text(text, 200) == text


def test_the_client_text_memory_is_bounded() -> None:
    redactor = Redactor()
    for n in range(1000):
        assert redactor.mask_client_text(f"/p{n}", 200) == f"/p{n}"
    assert len(redactor._rules.client_masked) <= 256


@pytest.mark.threat("F02")
def test_an_answer_is_encoded_once_when_clean_and_redacted_when_not() -> None:
    redactor = Redactor()
    secret = "s3cr3t-" + secrets.token_hex(16)
    clean: dict[str, Any] = {"result": {"text": "nothing to hide"}}
    assert redactor.scrub_encoded(clean, msgspec.json.encode) == (clean, msgspec.json.encode(clean))
    redactor.add(secret)
    obj, data = redactor.scrub_encoded({"text": f"token {secret}"}, msgspec.json.encode)
    assert obj == {"text": f"token {MASK}"} and data == msgspec.json.encode(obj)
    odd: dict[str, Any] = {"thing": object()}  # not JSON data: walked, then fails to encode
    with pytest.raises(TypeError):
        redactor.scrub_encoded(odd, msgspec.json.encode)


@pytest.mark.threat("F02")
def test_a_text_found_clean_is_searched_again_once_a_secret_is_added() -> None:
    redactor = Redactor()
    redactor.add("first-" + secrets.token_hex(16))
    secret = "later-" + secrets.token_hex(16)
    answer: dict[str, Any] = {"text": f"token {secret}"}
    assert redactor.scrub_encoded(answer, msgspec.json.encode)[0] is answer  # clean, remembered
    assert msgspec.json.encode(answer) in redactor._rules.clean
    redactor.add(secret)
    assert redactor.scrub_encoded(answer, msgspec.json.encode)[0] == {"text": f"token {MASK}"}


def test_the_clean_text_memory_is_bounded() -> None:
    redactor = Redactor()
    redactor.add("some-" + secrets.token_hex(16))
    big = {"text": "x" * 60_000}
    for n in range(40):
        redactor.scrub_encoded({"n": n, **big}, msgspec.json.encode)
    assert redactor._rules.clean._size <= 1024 * 1024
    huge: dict[str, Any] = {"text": "x" * 70_000}  # over the size of one remembered text
    redactor.scrub_encoded(huge, msgspec.json.encode)
    assert msgspec.json.encode(huge) not in redactor._rules.clean


async def _answers(body: dict[str, Any]) -> tuple[Any, tuple[Any, bytes]]:
    request = jsonrpc.decode(msgspec.json.encode(body))
    assert isinstance(request, jsonrpc.Request)
    dispatcher = Dispatcher(fixture_app())
    handled = await dispatcher.handle(request, Connection(HttpPeer(None)))
    return handled, await dispatcher.handle_encoded(request, Connection(HttpPeer(None)))


@pytest.mark.anyio
@pytest.mark.parametrize("request_id", [7, -999_999, 9_999_999, 10_000_000, 2**40, "req-7"])
async def test_the_encoded_answer_is_the_answer_the_dispatcher_returns(
    request_id: int | str,
) -> None:
    params = {"name": "echo", "arguments": {"text": "hi"}, "_meta": META}
    body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    handled, (answer, data) = await _answers(body)
    assert answer == handled and data == jsonrpc.encode(handled)


@pytest.mark.anyio
@pytest.mark.threat("F02")
async def test_a_result_and_a_long_id_are_redacted_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    from sevdesk_mcp.safety import redact

    redactor = Redactor()
    monkeypatch.setattr("sevdesk_mcp.mcp.dispatcher.REDACTOR", redactor)
    secret = "s3cr3t-" + secrets.token_hex(8)
    redactor.add(secret)
    params = {"name": "echo", "arguments": {"text": secret}, "_meta": META}
    for request_id in (3, 3, 2**52):  # the second: a remembered result; the third: a long id
        body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        _, (answer, data) = await _answers(body)
        assert secret not in data.decode() and redact.MASK in data.decode()
        assert data == jsonrpc.encode(answer)


def test_the_access_line_time_is_utc_to_the_millisecond() -> None:
    lines: list[str] = []
    AccessLog(lines.append).write(AccessRecord("GET", "/healthz", 200, 15, 0.001, "127.0.0.1"))
    stamp = msgspec.json.decode(lines[0])["ts"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", stamp)
