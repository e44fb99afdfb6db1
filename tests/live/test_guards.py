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

from live.allowlist import allowed, templates
from live.probes import READS
from live.recording import ENDPOINTS
from live.session import (
    GetOnlyTransport,
    LiveSession,
    LiveSettings,
    LiveSetupError,
    ReadOnlyRefusedError,
    settings_from,
)

from tests.live.live_env import NO_WRITES, live_client, write_refusal


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
        ("GET", "/Export/createDatevCsvZipExportJob", {}),  # starts an export job anyway
        ("GET", "/Export/datevCSV", {"enshrine": "true"}),  # deprecated, enshrines
        ("GET", "/Invoice/1/getpdf", {}),  # PHP routes words in any case
        ("GET", "/Invoice/1/getpdf", {"preventSendBy": "true"}),  # not the template's case
        ("GET", "/Progress/generateDownloadHash", {}),
        ("GET", "/Contact/0", {}),  # not an id
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


@pytest.mark.parametrize(
    ("url", "refusal"),
    [
        ("/api/v1/Invoice/1/getPdf?preventSendBy=true&preventSendBy=false", "preventSendBy twice"),
        ("/api/v1/Contact?limit=1&limit=2", "limit twice"),
        ("/api/v1/Contact%2F1", "not a path the recorder or the probes read"),
    ],
)
def test_repeated_query_keys_and_encoded_paths_are_refused(url: str, refusal: str) -> None:
    inner = NoSocket()
    gate = GetOnlyTransport(inner, "/api/v1")
    with pytest.raises(ReadOnlyRefusedError, match=refusal):
        gate.handle_request(httpx.Request("GET", f"https://my.sevdesk.de{url}"))
    assert inner.reached == []


def test_the_allow_list_is_the_recorder_and_probe_templates() -> None:
    found = templates()
    assert {e.path for e in ENDPOINTS} <= found and set(READS) <= found
    assert "/Invoice/{id}/getPdf" in found and "/Export/datevCSV" not in found
    assert allowed("/Invoice/12/getPositions") and not allowed("/Invoice/12/getPositions/3")
    assert not allowed("/invoice") and not allowed("/Invoice/x/getPositions")


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
        (
            {"SEVDESK_LIVE_WRITE": "1", "SEVDESK_LIVE_MARKER": "TESTKONTO"},
            "Meine TESTKONTO Echtfirma GmbH",  # the marker is only a substring test
            "SEVDESK_LIVE_CLIENT_ID='' is not the account's SevClient id '77'",
        ),
        (
            {
                "SEVDESK_LIVE_WRITE": "1",
                "SEVDESK_LIVE_MARKER": "TESTKONTO",
                "SEVDESK_LIVE_CLIENT_ID": "78",
            },
            "TESTKONTO GmbH",
            "SEVDESK_LIVE_CLIENT_ID='78' is not the account's SevClient id '77'",
        ),
    ],
)
def test_the_write_tests_refuse_without_the_trial_marker(
    env: dict[str, str], company: str | None, refusal: str
) -> None:
    found = write_refusal(env, company, "77")
    assert found is not None and refusal in found


def test_the_write_tests_run_on_the_marked_account() -> None:
    env = {
        "SEVDESK_LIVE_WRITE": "1",
        "SEVDESK_LIVE_MARKER": "testkonto-42",
        "SEVDESK_LIVE_CLIENT_ID": "77",
    }
    assert write_refusal(env, "Werkstatt TESTKONTO-42 GmbH", "77") is None
    assert write_refusal(env, "Werkstatt TESTKONTO-42 GmbH", None) is not None


def test_the_live_client_uses_the_scripts_https_check() -> None:
    env = {"SEVDESK_LIVE_TOKEN": "abc", "SEVDESK_LIVE_URL": "http://my.sevdesk.de/api/v1?x=secret"}
    with pytest.raises(LiveSetupError) as refused:
        live_client(env=env)
    assert str(refused.value).startswith("SEVDESK_LIVE_URL with http://my.sevdesk.de is refused")
    assert "secret" not in str(refused.value) and "/api/v1" not in str(refused.value)
    with pytest.raises(LiveSetupError, match="SEVDESK_LIVE_TOKEN is not set"):
        live_client(env={})
