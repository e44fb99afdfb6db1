"""What an assistant needs from the tool surface (issue 14, points 5 and 7): today in Berlin,
what is on and why, which bank accounts are online, English with the German term."""

from __future__ import annotations

import pytest

from sevdesk_mcp.tools.definitions import ALL_TOOLS
from tests.contract.test_documents import call
from tests.demo_account import demo_app

pytestmark = pytest.mark.anyio


async def test_status_names_what_is_on_and_the_books_today() -> None:
    status = (await call(demo_app(), "sevdesk_server_status"))["structuredContent"]
    assert status["tiers"] == ["read"] and status["read_only_setting"] is False
    assert "read_only" not in status
    assert status["today"] == "2026-11-27" and status["time_zone"] == "Europe/Berlin"
    assert status["demo"] is True
    assert any("Only reading is on (the default)" in note for note in status["notes"])


async def test_read_only_setting_wins_and_says_so() -> None:
    env = {"SEVDESK_READ_ONLY": "1", "SEVDESK_ALLOW": "write"}
    status = (await call(demo_app(env), "sevdesk_server_status"))["structuredContent"]
    assert status["tiers"] == ["read"] and status["read_only_setting"] is True
    assert any("whatever SEVDESK_ALLOW says" in note for note in status["notes"])


async def test_account_info_gives_today_in_berlin() -> None:
    info = (await call(demo_app(), "sevdesk_account_info"))["structuredContent"]
    assert info["today"] == "2026-11-27" and info["demo"] is True


def test_descriptions_are_english_with_the_german_term_in_parentheses() -> None:
    for tool in ALL_TOOLS:
        assert "festschreibt" not in tool.description, tool.name
        assert " a invoice" not in tool.description and " a order" not in tool.description
    finalize = next(t for t in ALL_TOOLS if t.name == "sevdesk_finalize_document")
    assert "enshrined (festschreiben, GoBD)" in finalize.description
    assert "marks it as sent (versendet)" in finalize.description


async def test_bank_accounts_say_which_are_online() -> None:
    listed = (await call(demo_app(), "sevdesk_list_bank_accounts"))["structuredContent"]
    kinds = {(a["type"], a["online"]) for a in listed["accounts"]}
    assert ("online", True) in kinds
    assert all(online == (kind == "online") for kind, online in kinds)


async def test_a_number_given_for_an_id_is_refused_with_what_the_id_is() -> None:
    result = await call(demo_app(), "sevdesk_get_contact", contact_id="K-1001")
    text = result["content"][0]["text"]
    assert result["isError"] is True and "Expected `int`, got `str`" in text
    assert "contact_id is:" in text and "not the customer number" in text
