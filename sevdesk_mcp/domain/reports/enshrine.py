"""The DATEV export that enshrines its period (festschreiben, GoBD), prepared and run.

:func:`prepare_enshrined_export` reads (nothing else) what the export would lock: the
finalized invoices and credit notes, the receipts that are no drafts and the booked bank
transactions of the period, each list through sevDesk's date filter and counted again here
(sevDesk ignores filters it does not know, Q12). The preview states the period, the counts and
that it cannot be undone; the write flow binds every list read into the approval, so a document,
receipt or booking that appears in the period before the approved call voids the approval.
:func:`run_enshrined_export` starts the job with ``enshrineDocuments`` (commit tier) and
downloads its file as :func:`~sevdesk_mcp.domain.reports.exports.datev_export` does.

Documents and receipts already enshrined are exported again (``includeEnshrined``) and counted
apart: they are locked already. Bank transactions sevDesk booked on its own and nobody confirmed
(status 350) are not counted as locked: sevDesk does not document whether festschreiben locks
them (§3.1 knows the status only). The preview names how many there are, and says that its
count holds confirmed bookings (400) only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final, Generic, TypeVar

import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reports import exports
from sevdesk_mcp.domain.reports.datev.expected import Expected, expected_of
from sevdesk_mcp.domain.reports.datev.expected import Listed as _Stamped
from sevdesk_mcp.domain.reports.period import Period
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.preview import Day, Preview, Said, fact, say
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.together import each

MAX_COUNTED: Final = 20_000
ENSHRINE_POLLS: Final = 30
"""Checks of the job (2 s apart): about a minute, so the call ends within the write flow's
execute limit (120 s) with a clear answer instead of an unknown outcome."""
DOCUMENT_DRAFT: Final = 100
RECEIPT_DRAFT: Final = 50
BOOKED: Final = 400  # a bank transaction booked on documents or receipts (§3.1)
AUTO_BOOKED: Final = 350  # booked by sevDesk without the user's confirmation (§3.1)
GOBD: Final = Said(
    "Festschreiben (enshrining, GoBD): every invoice, credit note, receipt and booking of the "
    "period is locked in sevDesk for good. None of them can be changed, reset, cancelled, "
    "deleted or booked differently afterwards. This cannot be undone, not even by sevDesk's "
    "support.",
    "Festschreiben (GoBD): Jede Rechnung, Gutschrift, jeder Beleg und jede Buchung des "
    "Zeitraums wird in sevDesk endgültig gesperrt. Nichts davon lässt sich danach ändern, "
    "zurücksetzen, stornieren, löschen oder anders verbuchen. Das lässt sich nicht rückgängig "
    "machen, auch nicht durch den Support von sevDesk.",
)


class Tally(msgspec.Struct, frozen=True):
    """What one kind of record holds in the period: to be locked now, and locked already."""

    new: int
    already: int

    def said(self) -> Said:
        """:returns: the count as the preview says it."""
        if not self.already:
            return say("{0}", "{0}", self.new)
        return say(
            "{0} (already enshrined: {1})",
            "{0} (bereits festgeschrieben: {1})",
            self.new,
            self.already,
        )


class Locked(msgspec.Struct, frozen=True):
    """The counts of the period, as the approval saw them."""

    documents: Tally
    receipts: Tally
    bookings: Tally
    unconfirmed: int = 0
    """Bank transactions auto-booked (350) in the period, not enshrined: not counted above."""
    expected: Expected = Expected()
    """The period's documents by number, for the check of the DATEV file."""

    def total(self) -> int:
        """:returns: how many records the export newly locks."""
        return self.documents.new + self.receipts.new + self.bookings.new


D = TypeVar("D")


class EnshrinePlan(msgspec.Struct, Generic[D], frozen=True):
    """The approved export: period, images, the counts shown, and where its file goes
    (``delivery``: whatever the tool needs to deliver it, carried through unchanged)."""

    period: Period
    images: bool
    locked: Locked
    delivery: D


_Counter = Callable[[_Stamped], bool]


def _document_open(item: _Stamped) -> bool:
    return item.status != DOCUMENT_DRAFT


def _receipt_open(item: _Stamped) -> bool:
    return item.status != RECEIPT_DRAFT


def _booked(item: _Stamped) -> bool:
    return item.status == BOOKED and item.deletedAt is None


def _auto_booked(item: _Stamped) -> bool:
    return item.status == AUTO_BOOKED and item.deletedAt is None and item.enshrined is None


_LISTS: Final[tuple[tuple[str, _Counter], ...]] = (
    ("/Invoice", _document_open),
    ("/CreditNote", _document_open),
    ("/Voucher", _receipt_open),
    ("/CheckAccountTransaction", _booked),
)


async def count_locked(client: SevdeskPort, period: Period) -> Locked:
    """:returns: what enshrining ``period`` locks, per kind.

    :raises ToolError: if a list has more than :data:`MAX_COUNTED` entries in the period (the
        counts an approval binds must be exact).
    :raises UpstreamError: if sevDesk cannot be read.
    """
    window = {"startDate": dates.unix_start(period.start), "endDate": dates.unix_end(period.end)}

    def reader(path: str) -> Callable[[], Awaitable[list[_Stamped]]]:
        async def read() -> list[_Stamped]:
            page = await client.get_all(path, window, max_items=MAX_COUNTED)
            if page.truncated:
                raise ToolError(
                    f"{path[1:]} holds more than {MAX_COUNTED:,} entries in {period.name}; the "
                    "enshrining export needs exact counts. Export a shorter period (a month)."
                )
            return wire.parse_all(page.items, _Stamped)

        return read

    found = await each([reader(path) for path, _ in _LISTS])
    tallies = [_tally(items, keep, period) for items, (_, keep) in zip(found, _LISTS, strict=True)]
    invoices, notes, receipts, bookings = tallies
    documents = Tally(invoices.new + notes.new, invoices.already + notes.already)
    transactions = found[-1]  # /CheckAccountTransaction, the last of _LISTS
    unconfirmed = sum(1 for i in transactions if i.day() in period and _auto_booked(i))
    expected = expected_of([*found[0], *found[1]], found[2], period)
    return Locked(documents, receipts, bookings, unconfirmed, expected)


def _tally(items: list[_Stamped], keep: _Counter, period: Period) -> Tally:
    counted = [i for i in items if i.day() in period and keep(i)]
    already = sum(1 for i in counted if i.enshrined is not None)
    return Tally(len(counted) - already, already)


async def prepare_enshrined_export(
    client: SevdeskPort, period: Period, *, images: bool, delivery: D, delivered_as: Said
) -> Prepared[EnshrinePlan[D]]:
    """Plan the enshrining DATEV export of ``period`` (reads only).

    :param delivered_as: where the file goes, as the preview says it.
    :returns: the preview (period, counts, the GoBD warning) and the plan.
    :raises ToolError: if the period holds nothing to export, or a list is too long to count.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    locked = await count_locked(client, period)
    if locked.total() == 0 and not (locked.documents.already or locked.receipts.already):
        raise ToolError(
            f"{period.name} holds no finalized invoice, credit note, receipt or booking; there "
            "is nothing to export or enshrine."
        )
    span = say(
        "{0} ({1} to {2}, Europe/Berlin)",
        "{0} ({1} bis {2}, Europe/Berlin)",
        period.name,
        Day(period.start),
        Day(period.end),
    )
    facts = [
        fact("Period", "Zeitraum", span),
        fact(
            "Invoices and credit notes locked",
            "Gesperrte Rechnungen und Gutschriften",
            locked.documents.said(),
        ),
        fact("Receipts locked", "Gesperrte Belege", locked.receipts.said()),
        fact("Bank bookings locked", "Gesperrte Bankbuchungen", locked.bookings.said()),
        fact(
            "Auto-booked bank transactions, not counted",
            "Automatisch verbuchte Umsätze, nicht gezählt",
            _unconfirmed(locked.unconfirmed),
        ),
        fact(
            "Receipt images in the export",
            "Belegbilder im Export",
            say("yes", "ja") if images else say("no", "nein"),
        ),
        fact("The DATEV file", "Die DATEV-Datei", delivered_as),
    ]
    preview = Preview(
        action=say(
            "DATEV export of {0} with festschreiben: enshrine {1} records irreversibly.",
            "DATEV-Export von {0} mit Festschreiben: {1} Datensätze unwiderruflich festschreiben.",
            period.name,
            locked.total(),
        ),
        facts=facts,
        warnings=[GOBD],
        irreversible=True,
    )
    return Prepared(preview, EnshrinePlan(period, images, locked, delivery))


def _unconfirmed(count: int) -> Said:
    """:returns: what the preview says of the auto-booked transactions it does not count."""
    return say(
        "{0} (status 350: sevDesk booked them, nobody confirmed them). Whether festschreiben "
        "locks them is not documented, so the bank bookings above count confirmed ones (400) "
        "only; confirm or undo them in sevDesk first to be sure",
        "{0} (Status 350: sevDesk hat sie verbucht, niemand hat sie bestätigt). Ob das "
        "Festschreiben sie sperrt, ist nicht dokumentiert; die Bankbuchungen oben zählen daher "
        "nur bestätigte (400). Bestätigen Sie sie vorher in sevDesk oder nehmen Sie sie zurück, "
        "um sicherzugehen",
        count,
    )


async def run_enshrined_export(
    client: SevdeskPort, plan: EnshrinePlan[D], progress: Progress
) -> exports.DatevJob:
    """Run the approved export: the job with ``enshrineDocuments``, then its file.

    :returns: the finished job with its file.
    :raises UpstreamError: if sevDesk refuses the job or does not finish it in time.
    :raises DownloadRefusedError: if the file's link or download is refused.
    """

    def started(job_id: str) -> None:
        progress.done(
            f"DATEV job {job_id} started with festschreiben of {plan.period.name}; sevDesk "
            "enshrines the period with it (its file can also be downloaded in sevDesk under "
            "Export)"
        )

    return await exports.datev_export(
        client,
        plan.period,
        images=plan.images,
        enshrine=True,
        on_start=started,
        max_polls=ENSHRINE_POLLS,
    )
