"""Bearer mode: one shared secret, or two while rotating; 401 with WWW-Authenticate otherwise."""

from __future__ import annotations

import pytest

from sevdesk_mcp.errors import HttpError
from sevdesk_mcp.http.auth import BearerAuth
from sevdesk_mcp.http.messages import Headers
from sevdesk_mcp.safety.redact import Secret
from tests.http.helpers import (
    PREVIOUS_SECRET,
    SECRET,
    bearer_settings,
    http,
    post_modern,
    running,
)

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("authorization", "challenge"),
    [
        (None, 'Bearer realm="mcp-server-sevdesk"'),
        ("Bearer", 'Bearer realm="mcp-server-sevdesk"'),
        (f"Basic {SECRET}", 'Bearer realm="mcp-server-sevdesk"'),
        ("Bearer wrong-secret-0123456789-abcdefghijklmnopqrstuvwxyz", "invalid_token"),
        (f"Bearer {SECRET}x", "invalid_token"),
        (f"Bearer {SECRET[:-1]}", "invalid_token"),
        (f"Bearer {PREVIOUS_SECRET}", "invalid_token"),  # not configured: not accepted
    ],
)
async def test_a_missing_or_wrong_secret_gets_401_with_a_bearer_challenge(
    authorization: str | None, challenge: str
) -> None:
    headers = {"authorization": authorization} if authorization else {}
    async with running(settings=bearer_settings()) as server, http(server) as client:
        response = await post_modern(client, "tools/list", **headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer realm=")
    assert challenge in response.headers["www-authenticate"]
    assert server.built == []


async def test_the_secret_is_accepted_case_insensitively_by_scheme() -> None:
    async with running(settings=bearer_settings()) as server, http(server) as client:
        response = await post_modern(client, "tools/list", authorization=f"bearer {SECRET}")
    assert response.status_code == 200


async def test_while_rotating_both_secrets_are_accepted() -> None:
    async with running(settings=bearer_settings(previous=True)) as server, http(server) as client:
        current = await post_modern(client, "tools/list", authorization=f"Bearer {SECRET}")
        previous = await post_modern(
            client, "tools/list", authorization=f"Bearer {PREVIOUS_SECRET}"
        )
        other = await post_modern(client, "tools/list", authorization="Bearer " + "z" * 40)
    assert [current.status_code, previous.status_code, other.status_code] == [200, 200, 401]


async def test_healthz_needs_no_secret_and_secrets_never_reach_the_log() -> None:
    async with running(settings=bearer_settings()) as server, http(server) as client:
        health = await client.get("/healthz")
        await post_modern(client, "tools/list", authorization=f"Bearer {SECRET}")
        await post_modern(client, "tools/list", authorization=f"Bearer {SECRET}-wrong")
    assert health.status_code == 200
    assert [r["status"] for r in server.log_records()] == [200, 200, 401]
    assert not any(SECRET in line for line in server.log_lines)


def test_two_authorization_headers_are_refused() -> None:
    auth = BearerAuth([Secret(SECRET)])
    headers = Headers([(b"authorization", f"Bearer {SECRET}".encode())] * 2)
    with pytest.raises(HttpError, match="Bearer <secret>"):
        auth.check(headers)


def test_bearer_mode_needs_a_secret() -> None:
    with pytest.raises(ValueError, match="at least one secret"):
        BearerAuth([])
