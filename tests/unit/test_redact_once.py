"""The one redactor: client text masked by pieces (remembered until a secret is added), and
answers checked and encoded once."""

from __future__ import annotations

import re
import secrets
from typing import Any

import msgspec
import pytest

from sevdesk_mcp.http.log import AccessLog, AccessRecord
from sevdesk_mcp.http.mcp_route import HttpPeer
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


async def _answers(body: dict[str, Any]) -> tuple[Any, tuple[Any, bytes]]:
    request = jsonrpc.decode(msgspec.json.encode(body))
    assert isinstance(request, jsonrpc.Request)
    dispatcher = Dispatcher(fixture_app())
    handled = await dispatcher.handle(request, Connection(HttpPeer(None)))
    return handled, await dispatcher.handle_encoded(request, Connection(HttpPeer(None)))


@pytest.mark.anyio
async def test_the_encoded_answer_is_the_answer_the_dispatcher_returns() -> None:
    params = {"name": "echo", "arguments": {"text": "hi"}, "_meta": META}
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    handled, (answer, data) = await _answers(body)
    assert answer == handled and data == jsonrpc.encode(handled)


def test_the_access_line_time_is_utc_to_the_millisecond() -> None:
    lines: list[str] = []
    AccessLog(lines.append).write(AccessRecord("GET", "/healthz", 200, 15, 0.001, "127.0.0.1"))
    stamp = msgspec.json.decode(lines[0])["ts"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", stamp)
