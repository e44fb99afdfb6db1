"""``scripts/probe_api.py`` against the fake sevDesk served on 127.0.0.1.

The fake models the quirks of ``docs/sevdesk-api.md``, so every probe that a read can decide
must say ``holds``; an API that changed (answers rewritten on their way back) must be
reported as changed, and an account without the data as ``cannot check``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import probe_api
from live.probes import PROBES, READ_ONLY
from live.session import LiveSession, LiveSettings

from sevdesk_mcp.fake import DEMO_TOKEN, FakeSevdesk, build_demo, serve_fake


class Rewriting(httpx.BaseTransport):
    """Forwards to the network (the fake on loopback) and changes what sevDesk would send:
    by-id answers unwrapped, transaction amounts as numbers, any limit accepted."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.seen: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(f"{request.method} {request.url.path}?{request.url.query.decode()}")
        if request.url.params.get("limit") == "1001":
            request = httpx.Request(
                "GET", request.url.copy_remove_param("limit"), headers=request.headers
            )
        response = self.inner.handle_request(request)
        body = json.loads(response.read())
        response.close()
        objects = body.get("objects") if isinstance(body, dict) else None
        if request.url.path.rsplit("/", 1)[-1].isdigit() and isinstance(objects, list):
            body["objects"] = objects[0]
        for row in objects if isinstance(objects, list) else []:
            if isinstance(row, dict) and row.get("objectName") == "CheckAccountTransaction":
                row["amount"] = float(row["amount"])
        return httpx.Response(response.status_code, json=body)

    def close(self) -> None:
        self.inner.close()


def probe(fake: FakeSevdesk, inner: httpx.BaseTransport | None = None) -> dict[str, str]:
    with (
        serve_fake(fake) as url,
        LiveSession(LiveSettings(url=url, token=fake.token), inner) as session,
    ):
        return probe_api.run(session)


def test_every_probe_holds_against_the_fake() -> None:
    verdicts = probe(build_demo())
    assert set(verdicts) == {p.qid for p in PROBES} and len(PROBES) == 49
    readable = {p.qid for p in PROBES if p.check is not None}
    assert len(readable) == 23
    assert {q: v for q, v in verdicts.items() if q in readable and v != "holds"} == {}
    assert {v for q, v in verdicts.items() if q not in readable} == {READ_ONLY}


def test_probes_only_read() -> None:
    inner = Rewriting()
    probe(build_demo(), inner)
    assert inner.seen and all(line.startswith("GET ") for line in inner.seen)
    pdf = [line for line in inner.seen if "/getPdf" in line]
    assert pdf and all("preventSendBy=true" in line for line in pdf)


def test_a_changed_api_is_reported() -> None:
    verdicts = probe(build_demo(), Rewriting())
    assert verdicts["Q2"] == "changed: GET /Contact/{id} sent dict"
    assert verdicts["Q5"] == "changed: the transaction amount is a float"
    assert verdicts["§1-limit"] == "changed: limit=1001 gave HTTP 200"
    assert verdicts["Q4"] == "holds"


def test_an_account_without_the_data_cannot_be_checked() -> None:
    verdicts = probe(FakeSevdesk(token=DEMO_TOKEN))
    assert verdicts["Q10"] == "cannot check: the account has no fitting object in /Invoice"
    assert verdicts["Q19"] == "cannot check: the account has no invoices"
    assert not any(v.startswith("changed") for v in verdicts.values())


def test_main_prints_a_line_per_quirk_and_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    fake = build_demo()
    with serve_fake(fake) as url:
        env = {"SEVDESK_LIVE_TOKEN": fake.token, "SEVDESK_LIVE_URL": url}
        assert probe_api.main(["--only", "Q2,Q4,Q7"], env) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in out[:3]] == [
        ["Q2", "holds"],
        ["Q4", "holds"],
        ["Q7", "cannot"],
    ]
    assert out[3] == "3 quirks: 0 changed"


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        ([], {}, "SEVDESK_LIVE_TOKEN is not set"),
        (["--only", "Q99"], {"SEVDESK_LIVE_TOKEN": "t"}, "Unknown quirk Q99"),
    ],
)
def test_main_refuses_a_bad_setup_in_one_line(
    argv: list[str], env: dict[str, str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert probe_api.main(argv, env) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
