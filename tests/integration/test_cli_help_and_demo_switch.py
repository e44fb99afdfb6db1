"""``--help`` names the settings that matter most and where the rest are documented;
``SEVDESK_DEMO=1`` serves the demo books like ``--demo`` (for clients configured by environment
only, such as the Claude Desktop bundle)."""

from __future__ import annotations

import json

import pytest

from sevdesk_mcp.cli import main
from tests.integration.test_cli import META, run
from tests.packaging.test_mcpb import documented_settings

MOST_IMPORTANT = (
    "SEVDESK_API_TOKEN",
    "SEVDESK_API_TOKEN_FILE",
    "token set",
    "SEVDESK_ALLOW",
    "SEVDESK_CONFIRM",
    "SEVDESK_DRY_RUN",
    "SEVDESK_FILE_DIRS",
    "SEVDESK_LANGUAGE",
    "SEVDESK_DEMO",
    "--demo",
    "--http",
    "docs/configuration.md",
)


def test_help_lists_the_main_settings_and_where_the_rest_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for name in MOST_IMPORTANT:
        assert name in out, name
    assert "de or en" in out


def test_help_mentions_only_documented_settings(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    named = {w.strip("(),;:'.").split("=")[0] for w in capsys.readouterr().out.split()}
    assert {w for w in named if w.startswith("SEVDESK_")} <= documented_settings()


def test_the_demo_switch_serves_the_demo_books_without_a_token() -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "sevdesk_account_info", "_meta": META},
    }
    proc = run([], {"SEVDESK_DEMO": "1"}, stdin=json.dumps(call) + "\n")
    assert proc.returncode == 0, proc.stderr
    assert "DEMO MODE" in proc.stderr
    assert json.loads(proc.stdout)["result"]["structuredContent"]["demo"] is True


def test_a_bad_demo_switch_stops_start_up_with_one_line() -> None:
    proc = run([], {"SEVDESK_DEMO": "maybe"})
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("mcp-server-sevdesk: SEVDESK_DEMO")
