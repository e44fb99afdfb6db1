"""The in-memory state of one fake sevDesk account.

Every change goes through :meth:`Store.add`, :meth:`Store.save` or :meth:`Store.remove`, which
stamp ``create``/``update`` from a deterministic clock and raise :attr:`Store.revision`; the
request log's ``applied`` flag is whether the revision moved. Ids come from per-table counters,
so two fakes built the same way hold the same ids.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Final, Generic, TypeVar

from sevdesk_mcp.fake.account_rules import SKR03, Account, Chart
from sevdesk_mcp.fake.documents import (
    CreditNote,
    CreditNotePos,
    DocBase,
    Invoice,
    InvoicePos,
    Order,
    OrderPos,
    PosBase,
)
from sevdesk_mcp.fake.legacy import AccountingType
from sevdesk_mcp.fake.models import (
    CheckAccount,
    CheckAccountTransaction,
    CheckAccountTransactionLog,
    CommunicationWay,
    Contact,
    ContactAddress,
    Part,
    SevClient,
    SevUser,
    Tag,
    TagRelation,
)
from sevdesk_mcp.fake.receipts import Voucher, VoucherPos
from sevdesk_mcp.fake.records import DocumentLog, Email
from sevdesk_mcp.fake.wire import BERLIN, Ref, Row, not_found

R = TypeVar("R", bound=Row)

OFFICE_OPENS: Final = time(9, 0)
FIRST_NUMBER: Final = 1001


class Table(Generic[R]):
    """The rows of one model, by id, in insertion (id) order."""

    def __init__(self, model: type[R], first_id: int) -> None:
        self.model = model
        self._rows: dict[int, R] = {}
        self._next_id = first_id

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[R]:
        return iter(list(self._rows.values()))

    def insert(self, row: R) -> R:
        """Store ``row``, giving it the next id when it has none.

        :returns: ``row``.
        """
        if row.id == 0:
            row.id = self._next_id
        self._next_id = max(self._next_id, row.id + 1)
        self._rows[row.id] = row
        return row

    def find(self, ident: int) -> R | None:
        """:returns: the row with id ``ident``, or ``None``."""
        return self._rows.get(ident)

    def get(self, ident: int) -> R:
        """:returns: the row with id ``ident``.

        :raises FakeError: 404 with code 151, as sevDesk answers (§5.7).
        """
        row = self._rows.get(ident)
        if row is None:
            raise not_found(self.model.OBJECT_NAME, ident)
        return row

    def pop(self, ident: int) -> None:
        """Forget the row with id ``ident``."""
        self._rows.pop(ident, None)


class Store:
    """All tables of one account plus its clock, number sequences and reference settings.

    :param today: the calendar day the fake treats as today.
    :param version: the bookkeeping system version (``"1.0"`` or ``"2.0"``).
    :param chart: the chart of accounts its booking accounts come from (``"skr03"``, the
        default, or ``"skr04"``).
    """

    def __init__(self, today: date, version: str, chart: Chart = SKR03) -> None:
        self.today = today
        self.version = version
        self.chart: Chart = chart
        self.revision = 0
        self._ticks = 0
        self.client = SevClient(id=1, name="sevDesk Fake")
        self.users = Table(SevUser, 1)
        self.contacts = Table(Contact, 410001)
        self.addresses = Table(ContactAddress, 520001)
        self.communication_ways = Table(CommunicationWay, 530001)
        self.parts = Table(Part, 610001)
        self.invoices = Table(Invoice, 700001)
        self.invoice_positions = Table(InvoicePos, 710001)
        self.credit_notes = Table(CreditNote, 720001)
        self.credit_note_positions = Table(CreditNotePos, 730001)
        self.orders = Table(Order, 740001)
        self.order_positions = Table(OrderPos, 750001)
        self.vouchers = Table(Voucher, 800001)
        self.voucher_positions = Table(VoucherPos, 810001)
        self.check_accounts = Table(CheckAccount, 5001)
        self.transactions = Table(CheckAccountTransaction, 900001)
        self.transaction_logs = Table(CheckAccountTransactionLog, 950001)
        self.document_logs = Table(DocumentLog, 960001)
        self.emails = Table(Email, 970001)
        self.tags = Table(Tag, 860001)
        self.tag_relations = Table(TagRelation, 870001)
        self.sequences: dict[str, int] = {}
        # prefix -> (format, width of %NUMBER): a number range's own format (a rehearsal's
        # real one); a prefix not here numbers as ``RE-1043``.
        self.number_formats: dict[str, tuple[str, int]] = {}
        # the account's own booking accounts by AccountDatev id (a rehearsal's real chart);
        # empty: the accounts of ``chart``.
        self.own_accounts: dict[int, Account] = {}
        # the same for bookkeeping 1.0's booking accounts (AccountingType)
        self.own_accounting_types: dict[int, AccountingType] = {}

    @property
    def client_ref(self) -> Ref:
        """:returns: the reference every object carries as ``sevClient``."""
        return self.client.ref()

    def now(self) -> datetime:
        """:returns: a deterministic "now": today 09:00 Berlin plus one second per call."""
        self._ticks += 1
        start = datetime.combine(self.today, OFFICE_OPENS, tzinfo=BERLIN)
        return start + timedelta(seconds=self._ticks)

    def add(self, table: Table[R], row: R) -> R:
        """Insert a new row stamped with the clock.

        :returns: ``row`` with its id.
        """
        row.create = row.update = self.now()
        self.revision += 1
        return table.insert(row)

    def save(self, row: Row) -> None:
        """Record that ``row`` changed."""
        row.update = self.now()
        self.revision += 1

    def touch(self) -> None:
        """Record a change that no row shows (a reserved document number)."""
        self.revision += 1

    def remove(self, table: Table[R], row: R) -> None:
        """Delete ``row`` from ``table``."""
        table.pop(row.id)
        self.revision += 1

    def next_number(self, prefix: str) -> str:
        """Take the next document number for ``prefix`` (``"RE-"`` → ``"RE-1043"``).

        The sequence moves only when a number is assigned, that is on enshrining (§2.1).

        :returns: the number.
        """
        value = self.peek_number(prefix)
        self.sequences[prefix] = value + 1
        return self.format_number(prefix, value)

    def number_format(self, prefix: str) -> tuple[str, int]:
        """:returns: the format of ``prefix``'s range and the width ``%NUMBER`` is padded to."""
        return self.number_formats.get(prefix, (f"{prefix}%NUMBER", 0))

    def format_number(self, prefix: str, value: int) -> str:
        """:returns: number ``value`` of ``prefix``'s range in its format (``%YYYY``, ``%YY``,
        ``%MM`` of today; ``%NUMBER`` zero-padded to the range's width)."""
        pattern, width = self.number_format(prefix)
        return (
            pattern.replace("%YYYY", f"{self.today:%Y}")
            .replace("%YY", f"{self.today:%y}")
            .replace("%MM", f"{self.today:%m}")
            .replace("%NUMBER", str(value).zfill(width))
        )

    def peek_number(self, prefix: str) -> int:
        """:returns: the numeric part of the next number for ``prefix``, without taking it."""
        return self.sequences.get(prefix, FIRST_NUMBER)

    def note_number_used(self, prefix: str, number: str) -> None:
        """Move the sequence past ``number`` when it is the next one (a number the client read
        from SevSequence without reserving it and has now enshrined).
        """
        if number == self.format_number(prefix, self.peek_number(prefix)):
            self.sequences[prefix] = self.peek_number(prefix) + 1

    def positions_of(self, doc: DocBase) -> list[PosBase]:
        """:returns: the positions of an invoice, credit note or order, in id order."""
        table: Table[InvoicePos] | Table[CreditNotePos] | Table[OrderPos]
        if isinstance(doc, Invoice):
            table = self.invoice_positions
        elif isinstance(doc, CreditNote):
            table = self.credit_note_positions
        else:
            table = self.order_positions
        return [p for p in table if p.document.id == doc.id]

    def voucher_positions_of(self, voucher: Voucher) -> list[VoucherPos]:
        """:returns: the positions of ``voucher``, in id order."""
        return [p for p in self.voucher_positions if p.voucher.id == voucher.id]

    def balance(self, account: CheckAccount, before: datetime | None = None) -> Decimal:
        """:returns: the sum of the account's live transactions entered before ``before``."""
        return sum(
            (
                t.amount
                for t in self.transactions
                if t.checkAccount.id == account.id
                and t.deletedAt is None
                and (before is None or t.entryDate < before)
            ),
            Decimal(0),
        )

    def references(self, contact: Contact) -> bool:
        """:returns: whether any document, voucher or person points at ``contact``."""
        docs: list[DocBase] = [*self.invoices, *self.credit_notes, *self.orders]
        if any(d.contact is not None and d.contact.id == contact.id for d in docs):
            return True
        if any(v.supplier is not None and v.supplier.id == contact.id for v in self.vouchers):
            return True
        return any(c.parent is not None and c.parent.id == contact.id for c in self.contacts)
