"""The words and totals of progress, told to the observer of one call (issue 39): a list's
pages with a total, a job's own count, single requests in words, in German and English."""

from __future__ import annotations

from typing import Any

import pytest

from sevdesk_mcp.tools.progress import CallObserver

pytestmark = pytest.mark.anyio


class Told:
    """A request context that keeps what would be sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        self.sent.append({"progress": progress, "total": total, "message": message})

    async def log(self, level: str, data: Any) -> None:
        pass


def observer(language: str) -> tuple[CallObserver, Told]:
    told = Told()
    return CallObserver(told, "sevdesk_search_documents", language), told  # type: ignore[arg-type]


async def test_eleven_pages_count_up_to_their_total() -> None:
    # 10,500 invoices at 1,000 a page: 11 pages; the first page's answer is one step before
    # the news that more pages come (step 2, page 1 of 11), then one step per page
    watch, told = observer("de")
    await watch.answered("GET", "/Invoice")
    await watch.listed("/Invoice", 1000, 10_500)
    for _ in range(10):
        await watch.answered("GET", "/Invoice")
    pages = told.sent[1:]
    assert [p["message"] for p in pages] == [
        f"Rechnungen gelesen: Seite {n} von 11" for n in range(1, 12)
    ]
    assert told.sent[0] == {"progress": 1.0, "total": None, "message": "Gelesen: Rechnungen"}
    assert [p["progress"] for p in pages] == [float(n) for n in range(2, 13)]
    assert {p["total"] for p in pages} == {12.0}  # 1 + 11 steps


async def test_a_page_reported_after_its_answer_starts_no_new_list() -> None:
    watch, told = observer("en")
    await watch.listed("/Invoice", 1000, 2500)
    await watch.answered("GET", "/Invoice")
    await watch.answered("GET", "/Invoice")
    await watch.listed("/Invoice", 2000, 2500)  # page 2's own news, after the last page
    assert [p["message"] for p in told.sent] == [
        "Invoices read: page 1 of 3",
        "Invoices read: page 2 of 3",
        "Invoices read: page 3 of 3",
    ]


async def test_a_list_of_unknown_length_and_a_job_have_words_but_no_total() -> None:
    watch, told = observer("de")
    await watch.listed("/Voucher", 2000, None)
    await watch.listed("the DATEV export", 40, 100)
    await watch.answered("POST", "/Invoice/Factory/saveInvoice")
    assert [p["message"] for p in told.sent] == [
        "Belege gelesen: 2.000 bisher",
        "DATEV-Export: 40 von 100 erstellt",
        "An sevDesk gesendet: Rechnungen",
    ]
    assert {p["total"] for p in told.sent} == {None}


async def test_english_words() -> None:
    watch, told = observer("en")
    await watch.listed("/Voucher", 2000, None)
    await watch.listed("the DATEV export", 40, 100)
    await watch.answered("GET", "/CheckAccountTransaction")
    await watch.answered("PUT", "/Contact/5")
    assert [p["message"] for p in told.sent] == [
        "Receipts read: 2,000 so far",
        "DATEV export: 40 of 100 built",
        "Read: bank transactions",
        "Sent to sevDesk: contacts",
    ]
