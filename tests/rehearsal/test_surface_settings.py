"""The rehearsal's switches: ``SEVDESK_REHEARSE``, ``--rehearse``, ``SEVDESK_REHEARSE_CONFIRM``,
the bundle switch, the start-up banner and the refusal in OAuth mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest

from sevdesk_mcp.cli import _listening_env, _parser
from sevdesk_mcp.cli.rehearse import banner, refuse_in_oauth, refuse_shared
from sevdesk_mcp.cli.run import token_account
from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "a" * 32


@pytest.mark.parametrize(("value", "on"), [("on", True), ("off", False), ("1", True), ("", False)])
def test_the_setting_is_a_yes_no_switch(value: str, on: bool) -> None:
    assert load_config({"SEVDESK_REHEARSE": value}).rehearse is on


def test_a_bad_value_is_refused_in_one_line_naming_the_setting() -> None:
    with pytest.raises(ConfigError) as caught:
        load_config({"SEVDESK_REHEARSE": "maybe"})
    text = str(caught.value)
    assert "SEVDESK_REHEARSE" in text and "off" in text and "\n" not in text


def test_approvals_are_off_for_a_rehearsal_only() -> None:
    env = {"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_CONFIRM": "off"}
    assert load_config(env).confirm == "off"  # no SEVDESK_I_UNDERSTAND_NO_CONFIRM needed
    browser = {**env, "SEVDESK_CONFIRM": "browser"}
    assert load_config(browser).confirm == "off"
    asked = {"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_CONFIRM": "on"}
    assert load_config(asked).confirm == "elicit"
    with pytest.raises(ConfigError) as caught:
        load_config({"SEVDESK_REHEARSE_CONFIRM": "off"})
    text = str(caught.value)
    assert "SEVDESK_REHEARSE_CONFIRM" in text and "SEVDESK_REHEARSE=on" in text
    assert "\n" not in text
    with pytest.raises(ConfigError, match="SEVDESK_REHEARSE_CONFIRM"):
        load_config({"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_CONFIRM": "later"})


def test_the_flag_sets_the_setting_for_http(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEVDESK_REHEARSE", raising=False)
    args = _parser().parse_args(["--http", "--rehearse", "--demo"])
    assert args.rehearse and args.demo
    assert _listening_env(args)["SEVDESK_REHEARSE"] == "on"
    plain = _parser().parse_args(["--http"])
    assert "SEVDESK_REHEARSE" not in _listening_env(plain)


def test_help_names_the_flag_and_the_settings() -> None:
    text = _parser().format_help()
    assert "--rehearse" in text
    assert "SEVDESK_REHEARSE" in text and "SEVDESK_REHEARSE_CONFIRM" in text


def test_the_banner_says_where_reads_come_from_and_what_is_on() -> None:
    config = load_config({"SEVDESK_REHEARSE": "on", "SEVDESK_ALLOW": "write,commit"})
    text = banner(config, "the demo books")
    assert "REHEARSAL MODE: reads come from the demo books, every write stays on this machine" in (
        text
    )
    assert "nothing is sent to sevDesk or to anyone" in text
    assert "Enabled tiers: read, write, commit" in text and "SEVDESK_CONFIRM=elicit" in text
    read_only = banner(load_config({"SEVDESK_REHEARSE": "on"}), "x")
    assert "nothing can be rehearsed" in read_only and "SEVDESK_ALLOW" in read_only
    unasked = load_config({"SEVDESK_REHEARSE": "on", "SEVDESK_REHEARSE_CONFIRM": "off"})
    assert "approvals are not asked (SEVDESK_REHEARSE_CONFIRM=off)" in banner(unasked, "x")


def test_oauth_mode_refuses_a_rehearsal_in_one_line() -> None:
    refuse_in_oauth(load_config({}))  # no rehearsal: nothing to refuse
    with pytest.raises(ConfigError) as caught:
        refuse_in_oauth(load_config({"SEVDESK_REHEARSE": "on"}))
    assert "bearer" in str(caught.value) and "\n" not in str(caught.value)


def test_several_instances_sharing_state_refuse_a_rehearsal() -> None:
    refuse_shared(load_config({"SEVDESK_REHEARSE": "on"}), shared=False)
    refuse_shared(load_config({}), shared=True)
    with pytest.raises(ConfigError, match="SEVDESK_HTTP_STATE_URL"):
        refuse_shared(load_config({"SEVDESK_REHEARSE": "on"}), shared=True)


def test_the_token_account_rehearses_with_the_proxy_inside_the_rehearsal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = {"SEVDESK_REHEARSE": "on", "SEVDESK_API_TOKEN": TOKEN}
    proxied = {**env, "SEVDESK_PROXY": "http://127.0.0.1:3128"}
    account = token_account(load_config(proxied), proxied)
    assert account.rehearsal is not None and account.real_reader is not None
    assert account.client is not None
    pool = account.client._pool.get()  # the httpx client, built on first use
    # no proxy mount: httpx would send around the rehearsal to reach a proxy it was given
    assert pool._transport is cast("object", account.rehearsal)
    assert not any(pool._mounts.values())
    assert "REHEARSAL MODE: reads come from the sevDesk account of the token" in (
        capsys.readouterr().err
    )
    plain = token_account(load_config({"SEVDESK_API_TOKEN": TOKEN}), {"SEVDESK_API_TOKEN": TOKEN})
    assert plain.rehearsal is None and plain.real_reader is None


def test_the_bundle_switch_maps_to_the_setting() -> None:
    manifest = json.loads((ROOT / "mcpb" / "manifest.json").read_text())
    option = manifest["user_config"]["rehearse"]
    assert option["type"] == "boolean" and option["default"] is False
    assert "nothing is written to sevDesk" in option["title"]
    env = manifest["server"]["mcp_config"]["env"]
    assert env["SEVDESK_REHEARSE"] == "${user_config.rehearse}"
    assert load_config({"SEVDESK_REHEARSE": "true"}).rehearse  # what the checkbox sends


def _serve(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SEVDESK_")}
    return subprocess.run(  # this interpreter, fixed arguments
        [sys.executable, "-m", "sevdesk_mcp", *args],
        input="",  # EOF at once: the server starts, announces itself and stops
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, "HOME": str(ROOT / "nonexistent-home"), **env},
        cwd=ROOT,
        check=False,
    )


def test_demo_rehearse_starts_with_the_banner_and_stops_at_eof() -> None:
    done = _serve("--demo", "--rehearse", env={"SEVDESK_ALLOW": "write"})
    assert done.returncode == 0, done.stderr
    assert "REHEARSAL MODE: reads come from the demo books" in done.stderr
    assert "Enabled tiers: read, write" in done.stderr


def test_a_bad_setting_stops_start_up_with_one_line() -> None:
    done = _serve("--demo", env={"SEVDESK_REHEARSE_CONFIRM": "off"})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "SEVDESK_REHEARSE_CONFIRM" in lines[0]
