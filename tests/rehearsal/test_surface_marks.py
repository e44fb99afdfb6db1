"""REHEARSAL everywhere the user looks: every tool result's first line, a write tool's structured
content, the approval question and the approval page (English and German: PROBELAUF), the
preview of a dry run; and none of it outside a rehearsal."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from sevdesk_mcp.cli import demo
from sevdesk_mcp.config import load_config
from sevdesk_mcp.http.kit.approval import preview_html
from sevdesk_mcp.http.local.approval_page import approval_html
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.safety.preview import REHEARSAL, Preview, say
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.tools.rehearsal_marks import RESULT_LINE, marked_preview
from tests.http.test_preview_html import an_approval
from tests.wire import FORM, open_wire
from tests.writes.helpers import DRAFT_ID

pytestmark = pytest.mark.anyio

ARGUMENTS: dict[str, Any] = {"kind": "invoice", "document_id": DRAFT_ID}
FINALIZE: dict[str, Any] = {"name": "sevdesk_finalize_document", "arguments": ARGUMENTS}


def app_of(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> McpApp:
    """:returns: the app of ``--demo`` (rehearsing when ``env`` says so) on fresh demo books."""
    books = demo.LazyDemoBooks()
    monkeypatch.setattr(demo, "demo_books", lambda: books)
    account = demo.demo_account(load_config({"SEVDESK_ALLOW": "write,commit", **env}))
    return ServerFactory(account.config).build(account)


async def question(app: McpApp) -> str:
    """:returns: the message of the approval question finalizing the demo draft asks."""
    async with open_wire(app) as wire:
        first = (await wire.modern("tools/call", FINALIZE, caps=FORM))["result"]
    (form,) = first["inputRequests"].values()
    return str(form["params"]["message"])


async def test_every_result_starts_with_the_rehearsal_line(monkeypatch: pytest.MonkeyPatch) -> None:
    app = app_of(monkeypatch, {"SEVDESK_REHEARSE": "on"})
    async with open_wire(app) as wire:
        read = (await wire.modern("tools/call", {"name": "sevdesk_open_items"}))["result"]
        dry = {**FINALIZE, "arguments": {**ARGUMENTS, "dryRun": True}}
        write = (await wire.modern("tools/call", dry))["result"]
        failed = (
            await wire.modern(
                "tools/call", {"name": "sevdesk_get_document", "arguments": {"kind": "nope"}}
            )
        )["result"]
    for result in (read, write, failed):
        assert result["content"][0]["text"].startswith(RESULT_LINE + "\n"), result
    assert failed["isError"] is True
    assert "rehearsal" not in read["structuredContent"]  # a read tool's output keeps its schema
    assert write["structuredContent"]["rehearsal"] is True
    (first, *_) = write["structuredContent"]["preview"]["warnings"]
    assert msgspec.convert(first, type(REHEARSAL)) == REHEARSAL  # the dry run says it first
    assert "REHEARSAL: this is rehearsed on this machine only" in write["content"][0]["text"]


async def test_nothing_is_marked_outside_a_rehearsal(monkeypatch: pytest.MonkeyPatch) -> None:
    app = app_of(monkeypatch, {})
    async with open_wire(app) as wire:
        read = (await wire.modern("tools/call", {"name": "sevdesk_open_items"}))["result"]
    assert not read["content"][0]["text"].startswith("REHEARSAL")
    assert "REHEARSAL" not in await question(app_of(monkeypatch, {}))


@pytest.mark.parametrize(
    ("lang", "word", "sentence"),
    [
        ("en", "REHEARSAL", "nothing is written to sevDesk or sent to anyone"),
        ("de", "PROBELAUF", "nichts wird in sevDesk geschrieben oder an jemanden gesendet"),
    ],
)
async def test_the_approval_question_says_it_first(
    monkeypatch: pytest.MonkeyPatch, lang: str, word: str, sentence: str
) -> None:
    app = app_of(monkeypatch, {"SEVDESK_REHEARSE": "on", "SEVDESK_LANGUAGE": lang})
    message = await question(app)
    first = message.splitlines()[0]
    assert word in first and sentence in first


def a_preview() -> Preview:
    return Preview(
        action=say("Finalize invoice draft 7", "Rechnungsentwurf 7 festschreiben"),
        warnings=[say("It gets its number.", "Sie erhält ihre Nummer.")],
        irreversible=True,
    )


@pytest.mark.parametrize(
    ("lang", "title", "sentence"),
    [
        ("en", "REHEARSAL: Approve a sevDesk action?", "nothing is written to sevDesk"),
        ("de", "PROBELAUF: sevDesk-Aktion freigeben?", "nichts wird in sevDesk geschrieben"),
    ],
)
def test_the_approval_page_says_it_in_the_title_and_first(
    lang: Any, title: str, sentence: str
) -> None:
    rehearsed = marked_preview(a_preview())
    assert marked_preview(rehearsed) == rehearsed  # marked once
    page = approval_html(an_approval(rehearsed), lang).decode()
    assert f"<title>{title}</title>" in page and f"<h1>{title}</h1>" in page
    shown = preview_html(rehearsed, lang)
    word = title.split(":", maxsplit=1)[0]
    assert shown.startswith(f'<h2 class="warnings">{word}</h2>')
    assert shown.index(sentence) < shown.index("Nummer" if lang == "de" else "number")
    plain = approval_html(an_approval(a_preview()), lang).decode()
    assert word not in plain and sentence not in plain
