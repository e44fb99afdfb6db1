"""OAuth mode from the command line: ``--http`` with ``SEVDESK_HTTP_AUTH=oauth``, ``grants list``,
``grants revoke ID`` and ``account-id`` (issue 16)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from sevdesk_mcp.fake import DEMO_TOKEN, build_demo, serve_fake
from tests.http.helpers import SECRET
from tests.http.oauth_support import authorize_query, form_fields, pkce, redirect_params
from tests.http.process import http_env, http_server
from tests.integration.test_cli import ROOT, clean_environment

pytestmark = pytest.mark.anyio


def oauth_cli_env(state: Path, **extra: str) -> dict[str, str]:
    return http_env(
        SEVDESK_HTTP_AUTH="oauth", SEVDESK_HTTP_STATE_DIR=str(state), SEVDESK_ALLOW="write", **extra
    )


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sevdesk_mcp", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def test_the_command_line_serves_oauth_and_lists_and_revokes_grants(tmp_path: Path) -> None:
    env = oauth_cli_env(tmp_path / "state")
    async with http_server("--demo", env=env) as server:
        base = server.url.removesuffix("/mcp")
        async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=60) as http:
            metadata = (await http.get("/.well-known/oauth-authorization-server")).json()
            redirect = "http://127.0.0.1:9/callback"
            registered = await http.post("/register", json={"redirect_uris": [redirect]})
            client_id = registered.json()["client_id"]
            verifier, challenge = pkce()
            page = await http.get("/authorize", params=authorize_query(client_id, challenge))
            form = {**form_fields(page.text), "sevdesk_token": DEMO_TOKEN, "decision": "allow"}
            params = redirect_params(await http.post("/authorize", data=form))
            token = await http.post(
                "/token",
                data={
                    "grant_type": "authorization_code",
                    "code": params["code"],
                    "code_verifier": verifier,
                    "client_id": client_id,
                    "redirect_uri": redirect,
                },
            )
        busy = cli(env, "grants", "revoke", "g_x")
    assert "OAuth authentication" in "\n".join(server.stderr)
    assert metadata["issuer"] == base and token.status_code == 200
    assert busy.returncode == 2 and "in use by another server process" in busy.stderr
    listed = cli(env, "grants", "list")
    grant_id = listed.stdout.splitlines()[1].split()[0]
    assert listed.returncode == 0 and grant_id.startswith("g_") and "84210" in listed.stdout
    assert client_id in listed.stdout and " read " in listed.stdout
    revoked = cli(env, "grants", "revoke", grant_id)
    missing = cli(env, "grants", "revoke", grant_id)
    assert revoked.stdout.strip() == f"revoked {grant_id}" and revoked.returncode == 0
    assert missing.returncode == 1
    assert len(cli(env, "grants", "list").stdout.splitlines()) == 1


def test_grants_refuse_bearer_mode_and_wrong_operands(tmp_path: Path) -> None:
    bearer = cli(http_env(), "grants", "list")
    wrong = cli(oauth_cli_env(tmp_path), "grants", "delete")
    stray = cli(oauth_cli_env(tmp_path), "generate-secret", "extra")
    assert bearer.returncode == 2 and "OAuth mode only" in bearer.stderr
    assert wrong.returncode == 2 and "grants list" in wrong.stderr
    assert stray.returncode == 2 and "unexpected" in stray.stderr


def test_account_id_prints_the_account_of_the_token() -> None:
    fake = build_demo()
    with serve_fake(fake) as base_url:
        env = {**clean_environment(), "PYTHONPATH": str(ROOT), "SEVDESK_API_URL": base_url}
        found = cli({**env, "SEVDESK_API_TOKEN": DEMO_TOKEN}, "account-id")
        refused = cli({**env, "SEVDESK_API_TOKEN": "0" * 32}, "account-id")
    missing = cli({**clean_environment(), "PYTHONPATH": str(ROOT)}, "account-id")
    assert found.returncode == 0 and found.stdout.startswith("84210\t")
    assert refused.returncode == 1 and DEMO_TOKEN not in refused.stderr
    assert missing.returncode == 2 and "SEVDESK_API_TOKEN" in missing.stderr
    assert SECRET not in found.stdout
