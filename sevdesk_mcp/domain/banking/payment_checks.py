"""The checks of a payment booking that concern the bank side: the check account, and the
transaction it is booked against with that transaction's booking log (``docs/sevdesk-api.md``
§2.8, Q17, Q26-Q28).

- An *online* check account needs the transaction the money came in or went out with; on an
  offline account or a cash register sevDesk creates that transaction itself, so none may be
  given (Q27).
- The transaction must belong to the same account, carry the sign of the booking (Q26) and
  still have at least the booked amount unbooked, according to its log (Q17).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.banking.accounts import ACTIVE, bookings_for, is_online
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.money import ZERO, cents, money
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import Missing, read_one
from sevdesk_mcp.errors import ToolError, ToolInputError
from sevdesk_mcp.safety.fence import clean
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.wire_finance import CheckAccount

PRIVATE: Final = 300
BOOKED: Final = 400
_ACCOUNT: Final = Missing(
    "check account", Action.LIST_BANK_ACCOUNTS, " lists them.", "check_account_id"
)
_TRANSACTION: Final = Missing(
    "transaction", Action.FIND_TRANSACTIONS, " lists them.", "transaction_id"
)


class TransactionState(msgspec.Struct, frozen=True):
    """A bank transaction with ``deletedAt`` (GET by id still returns deleted ones, §2.8)."""

    id: int
    valueDate: dt.datetime | None = None
    amount: Decimal | None = None
    paymtPurpose: str | None = None
    payeePayerName: str | None = None
    checkAccount: wire.Ref | None = None
    status: int | None = None
    deletedAt: dt.datetime | None = None


class AccountCheck(msgspec.Struct, frozen=True):
    """The check account a payment is booked on (``name`` as sevDesk holds it, cleaned:
    third-party text, empty when it has none)."""

    id: int
    name: str
    online: bool
    currency: str


class TransactionCheck(msgspec.Struct, frozen=True):
    """The transaction a payment is booked against, and how much of it is still unbooked;
    ``counterparty`` and ``purpose`` as the bank gave them (third-party text, not fenced)."""

    id: int
    amount: Decimal
    remaining: Decimal
    day: dt.date | None
    counterparty: str | None
    purpose: str | None


async def check_account(
    client: SevdeskPort, account_id: int, transaction_id: int | None
) -> AccountCheck:
    """:returns: the active check account ``account_id``, checked against Q27.

    :raises PreconditionError: for an unknown account or a missing transaction on an online
        account.
    :raises ToolInputError: for a transaction given for an offline account or cash register.
    :raises ToolError: for an archived account.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    account = await read_one(client, "CheckAccount", account_id, CheckAccount, missing=_ACCOUNT)
    name = clean(account.name or "")
    if account.status != ACTIVE:
        raise ToolError(f"Check account {account_id} is archived; book on an active account.")
    online = is_online(account)
    if online and transaction_id is None:
        raise PreconditionError(
            f"Check account {account_id} is an online bank account: sevDesk books on it only "
            "against the transaction the money moved with. Give transaction_id (",
            Action.FIND_UNMATCHED_TRANSACTIONS,
            " lists candidates).",
            record=f"check account {account_id}",
            field="transaction_id",
        )
    if not online and transaction_id is not None:
        raise ToolInputError(
            f"Check account {account_id} is an offline account or cash register: sevDesk "
            "creates the transaction itself there. Omit transaction_id."
        )
    return AccountCheck(account_id, name, online, (account.currency or "EUR").upper())


async def check_transaction(
    client: SevdeskPort, transaction_id: int, account_id: int, signed: Decimal
) -> TransactionCheck:
    """:returns: the transaction, checked against the booking of the ``signed`` amount.

    :raises PreconditionError: for an unknown transaction, or one fully booked.
    :raises ToolInputError: for a deleted transaction.
    :raises ToolError: if it belongs to another account, has the other sign, is private, or has
        less left to book than ``signed``.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    tx = await read_transaction(client, transaction_id)
    if tx.checkAccount is None or tx.checkAccount.id != account_id:
        other = tx.checkAccount.id if tx.checkAccount else "no account"
        raise ToolError(
            f"Transaction {transaction_id} belongs to check account {other}, not to "
            f"{account_id}. Book it on its own account, or choose a transaction of {account_id}."
        )
    amount = tx.amount or ZERO
    if amount * signed <= 0:
        raise ToolError(
            f"Transaction {transaction_id} is {_direction(amount)} ({cents(amount):f}), but this "
            f"payment is {_direction(signed)} money. Choose a transaction of that direction."
        )
    if tx.status == PRIVATE:
        raise ToolError(
            f"Transaction {transaction_id} is marked private (Privat); it cannot pay a document."
        )
    remaining = await _remaining(client, tx, amount)
    if abs(signed) > remaining:
        raise ToolError(
            f"Transaction {transaction_id} has only {money(remaining, None).amount} left to "
            f"book, less than {money(abs(signed), None).amount}. Book at most that much, or "
            "choose another transaction."
        )
    return TransactionCheck(
        id=tx.id,
        amount=amount,
        remaining=remaining,
        day=dates.berlin_date(tx.valueDate),
        counterparty=tx.payeePayerName,
        purpose=tx.paymtPurpose,
    )


async def read_transaction(client: SevdeskPort, transaction_id: int) -> TransactionState:
    """:returns: the transaction ``transaction_id``, not deleted.

    :raises PreconditionError: for an unknown transaction.
    :raises ToolInputError: for a deleted one.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    model, missing = "CheckAccountTransaction", _TRANSACTION
    tx = await read_one(client, model, transaction_id, TransactionState, missing=missing)
    if tx.deletedAt is not None:
        raise ToolInputError(
            f"Transaction {transaction_id} was deleted in sevDesk; choose another transaction."
        )
    return tx


async def unbooked_rest(client: SevdeskPort, tx: TransactionState) -> Decimal:
    """:returns: what is still unbooked of ``tx`` according to its booking log (Q17).

    :raises PreconditionError: if nothing is left.
    :raises ToolError: if it is marked booked with an empty log.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    return await _remaining(client, tx, tx.amount or ZERO)


async def _remaining(client: SevdeskPort, tx: TransactionState, amount: Decimal) -> Decimal:
    logs, _ = await bookings_for(client, [tx.id])
    entries = logs[tx.id]
    booked = abs(sum((e.amountPaid or ZERO for e in entries), ZERO))
    if tx.status == BOOKED and not entries:
        raise ToolError(
            f"Transaction {tx.id} is marked booked (gebucht), but its booking log is empty. "
            "Look at it in sevDesk before booking anything against it."
        )
    remaining = abs(amount) - booked
    if remaining <= 0:
        targets = ", ".join(
            f"{e.object.objectName} {e.object.id}" for e in entries if e.object is not None
        )
        raise PreconditionError(
            f"Transaction {tx.id} is already fully booked (against {targets or 'other records'}"
            "). Choose an unbooked transaction (",
            Action.FIND_UNMATCHED_TRANSACTIONS,
            ").",
            record=f"transaction {tx.id}",
            field="transaction_id",
        )
    return remaining


def _direction(amount: Decimal) -> str:
    return "incoming" if amount > 0 else "outgoing"
