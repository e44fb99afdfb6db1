"""The guards of the live scripts and tests, checked without any account (normal suite).

The scripts' session refuses every request that is not a plain read before a socket is
opened; the write tests refuse an account whose company name lacks the user's marker.
"""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from live.session import LiveSession, LiveSettings, ReadOnlyRefusedError, settings_from

from tests.live.live_env import NO_WRITES, write_refusal


class NoSocket(httpx.BaseTransport):
    """Fails the test if a request gets this far (where a socket would be opened)."""

    def __init__(self) -> None:
        self.reached: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.reached.append(f"{request.method} {request.url}")
        return httpx.Response(200, json={"objects": []})


@pytest.mark.parametrize(
    ("method", "path", "query"),
    [
        ("POST", "/Contact", {}),
        ("PUT", "/Invoice/1/sendBy", {}),
        ("DELETE", "/Contact/1", {}),
        ("GET", "/Invoice/1/getPdf", {}),  # without preventSendBy it marks the invoice sent
        ("GET", "/Export/createDatevCsvZipExportJob", {"enshrineDocuments": "true"}),
        ("GET", "/SevSequence/Factory/getByType", {"objectType": "Invoice", "type": "RE"}),
        ("GET", "/Contact/not-an-id", {}),
    ],
)
def test_anything_but_a_plain_read_is_refused_before_a_socket(
    method: str, path: str, query: dict[str, str]
) -> None:
    inner = NoSocket()
    settings = LiveSettings(url="https://my.sevdesk.de/api/v1", token="t" * 32)
    with LiveSession(settings, inner) as session, pytest.raises(ReadOnlyRefusedError) as refused:
        session.request(method, path, query)
    assert inner.reached == []
    assert str(refused.value).startswith(f"Refused {method} ")


def test_a_post_is_refused_even_to_an_unreachable_host() -> None:
    settings = LiveSettings(url="https://127.0.0.1:9/api/v1", token="t" * 32)
    with (
        LiveSession(settings) as session,
        pytest.raises(ReadOnlyRefusedError, match="GET requests only"),
    ):
        session.request("POST", "/Contact")  # a connection attempt would raise ConnectError


def test_a_plain_read_passes_with_the_raw_token_and_no_bearer() -> None:
    inner = NoSocket()
    with LiveSession(LiveSettings(url="https://my.sevdesk.de/api/v1", token="abc"), inner) as s:
        answer = s.get("/Invoice/1/getPdf", {"preventSendBy": "true"})
    assert answer.status == 200 and answer.body == {"objects": []}
    assert inner.reached == ["GET https://my.sevdesk.de/api/v1/Invoice/1/getPdf?preventSendBy=true"]


def test_settings_need_a_token_and_https() -> None:
    assert settings_from({"SEVDESK_LIVE_TOKEN": " abc "}).url == "https://my.sevdesk.de/api/v1"
    assert "abc" not in repr(settings_from({"SEVDESK_LIVE_TOKEN": "abc"}))
    local = {"SEVDESK_LIVE_TOKEN": "abc", "SEVDESK_LIVE_URL": "http://127.0.0.1:8089/api/v1/"}
    assert settings_from(local).url == "http://127.0.0.1:8089/api/v1"


@pytest.mark.parametrize(
    ("env", "company", "refusal"),
    [
        ({}, "Trial Werkstatt GmbH", NO_WRITES),
        ({"SEVDESK_LIVE_WRITE": "1"}, "Trial Werkstatt GmbH", "at least 6 characters"),
        (
            {"SEVDESK_LIVE_WRITE": "1", "SEVDESK_LIVE_MARKER": "Trial"},
            "Trial Werkstatt GmbH",
            "at least 6 characters",
        ),
        (
            {"SEVDESK_LIVE_WRITE": "1", "SEVDESK_LIVE_MARKER": "TESTKONTO"},
            "Echte Firma GmbH",
            "does not contain SEVDESK_LIVE_MARKER='TESTKONTO'",
        ),
        (
            {"SEVDESK_LIVE_WRITE": "1", "SEVDESK_LIVE_MARKER": "TESTKONTO"},
            None,
            "company name None does not contain",
        ),
    ],
)
def test_the_write_tests_refuse_without_the_trial_marker(
    env: dict[str, str], company: str | None, refusal: str
) -> None:
    found = write_refusal(env, company)
    assert found is not None and refusal in found


def test_the_write_tests_run_on_the_marked_account() -> None:
    env = {"SEVDESK_LIVE_WRITE": "1", "SEVDESK_LIVE_MARKER": "testkonto-42"}
    assert write_refusal(env, "Werkstatt TESTKONTO-42 GmbH") is None
