"""A scripted httpx transport for client tests: answers in order, records every request."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import Limits, SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer

TOKEN = "0123456789abcdef0123456789abcdef"
Answer = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


def ok(objects: Any, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(status, json={"objects": objects}, headers=headers)


def error(
    status: int, message: str = "Something failed", code: int | None = None
) -> httpx.Response:
    body: dict[str, Any] = {
        "error": {
            "exceptionUUID": "0",
            "message": message,
            "errorCode": 0,
            "code": code,
            "data": [],
            "responseCode": status,
        },
        "objects": None,
    }
    return httpx.Response(status, json=body)


class Script:
    """Answers requests from a list; the last answer repeats."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, httpx.Response):
            return answer
        return answer(request)

    def bodies(self) -> list[Any]:
        return [json.loads(r.content) if r.content else None for r in self.requests]


def client(
    script: Script,
    *,
    tiers: frozenset[Tier] = frozenset(Tier),
    read_only: bool = False,
    dry_run: bool = False,
    limits: Limits | None = None,
    base_url: str = "https://my.sevdesk.de/api/v1",
) -> SevdeskClient:
    return SevdeskClient(
        base_url=base_url,
        token=Secret(TOKEN),
        gate=WriteGate(tiers=tiers, read_only=read_only, dry_run=dry_run),
        pacer=Pacer(rate_per_s=1000, burst=1000),
        # the budget only guards against a hang, it never measures
        limits=limits or Limits(backoff_base_s=0.001, backoff_cap_s=0.002, budget_s=60),
        transport=httpx.MockTransport(script),
    )
