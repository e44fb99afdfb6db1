"""Previews, nonces and the audit writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from sevdesk_mcp.safety.audit import AuditError, AuditLog
from sevdesk_mcp.safety.nonces import NONCE_TTL_S, MemoryNonceStore
from sevdesk_mcp.safety.preview import MAX_PREVIEW_CHARS, Preview, digest, fact, render, say


def test_the_preview_is_capped_with_a_marker_but_hashed_in_full() -> None:
    long = Preview(action=say("Do it", "Tu es"), facts=[fact("Text", "Text", "x" * 20_000)])
    text = render(long)
    assert len(text) < MAX_PREVIEW_CHARS + 200
    assert text.endswith("more characters not shown; open the dry run to see everything]")
    longer = Preview(action=say("Do it", "Tu es"), facts=[fact("Text", "Text", "x" * 20_001)])
    assert render(longer)[:MAX_PREVIEW_CHARS] == text[:MAX_PREVIEW_CHARS]
    assert digest(long) != digest(longer)


def test_fact_values_lose_hidden_characters_but_keep_line_breaks() -> None:
    purpose = fact("Purpose", "Zweck", "pay\u202e now\nsecond\u200b line")
    text = render(Preview(action=say("A", "B"), facts=[purpose]))
    assert text == "A\nPurpose:\n    pay now\n    second line"


@pytest.mark.anyio
async def test_nonces_are_single_use_and_expire() -> None:
    now = [0.0]
    store = MemoryNonceStore(clock=lambda: now[0])
    first, second = await store.issue(), await store.issue()
    assert await store.consume(first) and not await store.consume(first)
    now[0] = NONCE_TTL_S + 1
    assert not await store.consume(second)
    assert not await store.consume(None) and not await store.consume("made-up")


def test_the_audit_log_appends_and_reports_failures(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "a.jsonl")
    log.write("one", x=1)
    log.write("two")
    assert len((tmp_path / "a.jsonl").read_text().splitlines()) == 2
    AuditLog(None).write("nothing")  # no file configured: nothing to do
    with pytest.raises(AuditError, match="check the file"):
        AuditLog(tmp_path).write("to a folder")
