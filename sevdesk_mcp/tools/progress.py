"""Progress and debug logs of one tool call, sent to the client while the call runs.

Progress counts the call's steps: every answered request to sevDesk is one, and so is the news
that a long list needs more pages. Messages are words a person reads, in the language of the
setting ``SEVDESK_LANGUAGE`` ("Rechnungen gelesen: Seite 3 von 11", "Invoices read: page 3 of
11"); they name what was read or sent, never a method or path.

``total`` is sent where the rest of the work is known: while a list is read page by page and
sevDesk said how many items it holds, the total is the steps so far plus the pages still to
come (of every such list of the call), so a client can draw a bar; it reaches the progress
with the last page. Steps outside a known list (single requests, a list without a count, the
polls of a DATEV export job, whose own "40 of 100" the message names) have no total: how many
requests a call needs is known only as it goes.

With a log level of ``debug`` each request is also logged as method and path. Both reach the
client only when it asked: a ``progressToken`` for progress, ``logging/setLevel`` or the
``_meta`` log level for logs. Paths never carry the token (it travels in a header), and the
logged text passes the redactor anyway.

Notifications are best effort: a client that is gone must not turn a finished write into a
failure, so the first failed notification ends them for the call.
"""

from __future__ import annotations

import logging
from typing import Final

from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.safety.locale import Lang
from sevdesk_mcp.safety.redact import REDACTOR

DEBUG: Final = "debug"
log = logging.getLogger("sevdesk_mcp.progress")

# What a list or a request at a path holds, in German and in English (plural).
NOUNS: Final[dict[str, tuple[str, str]]] = {
    "/Invoice": ("Rechnungen", "Invoices"),
    "/InvoicePos": ("Rechnungspositionen", "Invoice positions"),
    "/CreditNote": ("Gutschriften", "Credit notes"),
    "/CreditNotePos": ("Gutschriftpositionen", "Credit note positions"),
    "/Order": ("Aufträge", "Orders"),
    "/OrderPos": ("Auftragspositionen", "Order positions"),
    "/Voucher": ("Belege", "Receipts"),
    "/VoucherPos": ("Belegpositionen", "Receipt positions"),
    "/Contact": ("Kontakte", "Contacts"),
    "/ContactAddress": ("Adressen", "Addresses"),
    "/CommunicationWay": ("Kontaktwege", "Contact details"),
    "/CheckAccount": ("Zahlungskonten", "Payment accounts"),
    "/CheckAccountTransaction": ("Bankumsätze", "Bank transactions"),
    "/CheckAccountTransactionLog": ("Buchungsprotokolle", "Booking logs"),
    "/Part": ("Artikel", "Parts"),
    "/AccountDatev": ("Buchungskonten", "Booking accounts"),
    "/TaxRule": ("Steuerregeln", "Tax rules"),
    "/TaxSet": ("Steuersätze", "Tax sets"),
    "/StaticCountry": ("Länder", "Countries"),
    "/Unity": ("Einheiten", "Units"),
    "/SevClient": ("Firmendaten", "Company data"),
    "/SevUser": ("Benutzer", "Users"),
    "/Export": ("Exporte", "Exports"),
    "/ExportJob": ("Exportaufträge", "Export jobs"),
    "/Progress": ("Exportfortschritt", "Export progress"),
    "/Tools": ("sevDesk-Angaben", "sevDesk details"),
}
OTHER: Final = ("Daten", "Data")
JOBS: Final[dict[str, tuple[str, str]]] = {"the DATEV export": ("DATEV-Export", "DATEV export")}


def noun(path: str, lang: Lang) -> str:
    """:returns: what the list or record at ``path`` holds, in ``lang`` ("Rechnungen"); the
    first segment decides (``/Invoice/7/getPdf`` is about invoices)."""
    first = "/" + path.strip("/").split("/", 1)[0]
    german, english = NOUNS.get(path, NOUNS.get(first, OTHER))
    return german if lang == "de" else english


def number(value: int, lang: Lang) -> str:
    """:returns: a count with thousands separators as ``lang`` writes them (2.500, 2,500)."""
    written = f"{value:,}"
    return written.replace(",", ".") if lang == "de" else written


def asked(method: str, path: str, lang: Lang) -> str:
    """:returns: the words for one answered request ("Gelesen: Rechnungen")."""
    what = noun(path, lang)
    if method == "GET":
        return f"Gelesen: {what}" if lang == "de" else f"Read: {what.lower()}"
    return f"An sevDesk gesendet: {what}" if lang == "de" else f"Sent to sevDesk: {what.lower()}"


def page_read(path: str, page: int, pages: int, lang: Lang) -> str:
    """:returns: the words for a page of a list ("Rechnungen gelesen: Seite 3 von 11")."""
    what, done, of = noun(path, lang), number(page, lang), number(pages, lang)
    if lang == "de":
        return f"{what} gelesen: Seite {done} von {of}"
    return f"{what} read: page {done} of {of}"


def items_read(path: str, read: int, lang: Lang) -> str:
    """:returns: the words for a list of unknown length ("Rechnungen gelesen: 2.000 bisher")."""
    what, done = noun(path, lang), number(read, lang)
    return f"{what} gelesen: {done} bisher" if lang == "de" else f"{what} read: {done} so far"


def job_done(job: str, current: int, total: int | None, lang: Lang) -> str:
    """:returns: the words for a job's progress ("DATEV-Export: 40 von 100 erstellt")."""
    german, english = JOBS.get(job, ("Auftrag", "Job"))
    done = number(current, lang)
    if lang == "de":
        return (
            f"{german}: {done} von {number(total, lang)} erstellt" if total else f"{german}: {done}"
        )
    return f"{english}: {done} of {number(total, lang)} built" if total else f"{english}: {done}"


def pages_of(total: int, first_page: int) -> int:
    """:returns: how many pages a list of ``total`` items takes, ``first_page`` items a page."""
    return -(-total // first_page) if first_page > 0 else 1


class CallObserver:
    """Watches the sevDesk requests of one tool call for ``request``'s client."""

    def __init__(self, request: RequestContext, tool: str, language: Lang = "en") -> None:
        self._request = request
        self._tool = tool
        self._lang: Lang = language
        self._steps = 0
        self._silent = False
        self._lists: dict[str, list[int]] = {}  # path -> [pages answered, pages, items]
        self._read_whole: set[tuple[str, int]] = set()  # (path, total) of lists read whole

    async def answered(self, method: str, path: str) -> None:
        """Report the answered request as a step (a page, when it is one of a known list);
        log it at debug."""
        logged = REDACTOR(f"{method} {path}")
        pages = self._lists.get(path) if method == "GET" else None
        if pages is None:
            await self._send(asked(method, path, self._lang), logged)
            return
        pages[0] += 1
        message = page_read(path, pages[0], pages[1], self._lang)
        if pages[0] >= pages[1]:
            del self._lists[path]  # read whole: a later list at the path is a new one
            self._read_whole.add((path, pages[2]))
        await self._send(message, logged, counted=True)

    async def listed(self, path: str, read: int, total: int | None) -> None:
        """Say how much of a long list (or of a job, named instead of a path) has arrived."""
        if not path.startswith("/"):
            await self._send(job_done(path, read, total, self._lang), None)
        elif total is None:
            await self._send(items_read(path, read, self._lang), None)
        elif path not in self._lists and read < total and (path, total) not in self._read_whole:
            # the first news of a list that needs more pages (a page's own news that comes
            # after its answer, pages being read together, is left out)
            pages = pages_of(total, read)
            self._lists[path] = [1, pages, total]
            await self._send(page_read(path, 1, pages, self._lang), None, counted=True)

    def _remaining(self) -> int:
        return sum(pages - done for done, pages, _ in self._lists.values())

    async def _send(self, message: str, logged: str | None, *, counted: bool = False) -> None:
        """Send one step; with ``counted`` (a page of a known list) with the call's total."""
        if self._silent:
            return
        try:
            if logged is not None:
                await self._request.log(DEBUG, {"tool": self._tool, "sevdesk": logged})
            # Concurrent reads report from several tasks: the step is counted and claimed with
            # no await in between, so every report gets its own, increasing number.
            self._steps += 1
            step = self._steps
            total = float(step + self._remaining()) if counted or self._lists else None
            await self._request.report_progress(float(step), total, message=message)
        except Exception as exc:  # best effort: the call's outcome stands whatever happens here
            self._silent = True
            log.debug("progress notifications for %s stopped: %s", self._tool, exc)
