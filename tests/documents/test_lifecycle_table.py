"""The document lifecycle as data (``sevdesk_mcp/domain/lifecycle_table.py``): the fake sevDesk's
own state machine agrees with the table on every transition, every status x step is decided,
the read tools' status words come from it, and ``docs/architecture.md`` shows it as it is."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from sevdesk_mcp.domain import lifecycle_table as lt
from sevdesk_mcp.domain.documents.kinds import KINDS, StatusWord
from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.lifecycle_table import GONE, STATUSES, STEPS, TRANSITIONS, Kind, Refused
from sevdesk_mcp.domain.receipts.vouchers import StatusFilter
from sevdesk_mcp.fake import build_demo_with_facts
from tests.documents.lifecycle_driver import drive, plain_document, seen
from tests.documents.lifecycle_markdown import END, START, render
from tests.fake.helpers import api

ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


@pytest.mark.anyio
@pytest.mark.parametrize("kind", list(STATUSES))
async def test_the_fake_agrees_with_the_table_on_every_transition(kind: Kind) -> None:
    """For every status and step of the kind, the fake does what the table says sevDesk does:
    moves a plain document to the status after the step (or deletes it), or refuses."""
    disagreements = []
    for status, row in TRANSITIONS[kind].items():
        for step, outcome in row.items():
            fake, facts = build_demo_with_facts()
            doc = plain_document(fake, facts, kind, status)
            async with api(fake) as client:
                response = await drive(client, kind, doc, step)
            did = seen(fake, kind, doc.id, response)
            sevdesk = outcome.sevdesk if isinstance(outcome, Refused) else outcome
            if did.status != sevdesk:
                disagreements.append((status, step.value, outcome, did))
    assert disagreements == []


@pytest.mark.parametrize("kind", list(STATUSES))
def test_every_status_and_step_is_decided(kind: Kind) -> None:
    """Each status of the kind decides each of its steps, and leads only to its own statuses."""
    assert set(TRANSITIONS[kind]) == set(STATUSES[kind])
    for status, row in TRANSITIONS[kind].items():
        assert tuple(row) == STEPS[kind], status
        for step, outcome in row.items():
            after = outcome.sevdesk if isinstance(outcome, Refused) else outcome
            known = {*STATUSES[kind], None, *([GONE] if step is lt.Step.DELETE_DRAFT else [])}
            assert after in known, (status, step)


def test_draft_refusals_sit_where_the_draft_is() -> None:
    """The reason "is a draft" occurs only in the draft status, "no draft" only outside it."""
    for kind, rows in TRANSITIONS.items():
        for status, row in rows.items():
            whys = {o.why for o in row.values() if isinstance(o, Refused)}
            mistaken = lt.Why.NOT_DRAFT if status == lt.INITIAL[kind] else lt.Why.IS_DRAFT
            assert mistaken not in whys, (kind, status)


def test_the_read_tools_use_the_tables_status_words() -> None:
    for name, kind in KINDS.items():
        assert kind.statuses == lt.names(name)  # type: ignore[arg-type]
    words = {w for kind in ("invoice", "credit_note", "order") for w in lt.names(kind).values()}
    assert words | {"any", "cancelled"} == set(get_args(StatusWord))
    assert {*lt.names("voucher").values(), "any"} == set(get_args(StatusFilter))


def test_payable_statuses_are_those_a_payment_moves_on() -> None:
    assert lt.open_statuses("invoice") == lt.open_statuses("credit_note") == {200, 750}
    assert lt.open_statuses("voucher") == {100, 150, 750}
    assert lt.open_statuses("order") == frozenset()


def test_words_and_decisions() -> None:
    assert lt.word("voucher", 150) == "überwiesen (transferred)"
    assert lt.word("invoice", 500) == "status 500"
    assert lt.after("invoice", 100, lt.Step.FINALIZE, "Invoice 7") == 200
    assert lt.refusal("invoice", 200, lt.Step.FINALIZE, "Invoice 7") == Refused(
        lt.Why.NOT_DRAFT, sevdesk=200
    )
    assert lt.refusal("invoice", 200, lt.Step.ENSHRINE, "Invoice 7") is None


def test_what_is_refused_or_unknown_is_never_decided() -> None:
    with pytest.raises(PreconditionError, match="refused, because it is paid") as refused:
        lt.after("credit_note", 1000, lt.Step.PAY_PART, "Gutschrift (credit note) GU-1 (id 7)")
    assert str(refused.value).startswith("Gutschrift (credit note) GU-1 (id 7) is bezahlt (paid)")
    with pytest.raises(PreconditionError, match="status 500, which sevDesk does not document"):
        lt.decide("invoice", 500, lt.Step.CANCEL, "Rechnung (invoice) RE-1 (id 7)")
    with pytest.raises(PreconditionError, match="status None"):
        lt.refusal("voucher", None, lt.Step.RESET_TO_OPEN, "Beleg (receipt) 8")


def test_the_architecture_document_shows_the_tables_as_they_are() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start, end = text.index(START), text.index(END) + len(END)
    assert text[start:end] == render(), (
        "docs/architecture.md is behind lifecycle_table.py; paste the output of "
        "`.venv/bin/python -m tests.documents.lifecycle_markdown` between the markers"
    )
