"""Creating and updating articles (parts, ``docs/sevdesk-api.md`` §2.3), and the small helpers
every write of contacts and articles shares (relations, creates, ``old → new`` facts).

``prepare_*`` only reads: it checks the amounts, the unit and that no article has the same
number (ignoring case), proposes the next free number when none is given
(:mod:`sevdesk_mcp.domain.parts.numbers`: sevDesk has no endpoint for it), computes the gross
price and builds the preview and the exact body.
``execute_*`` sends that body once (Q33) and reads the article back. Money stays
:class:`~decimal.Decimal` and goes out as decimal strings; the gross price is net * (1 + rate)
rounded half-up to cents. On bookkeeping 2.0 only the rates 0, 7 and 19 are valid.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.contacts.read import Untrusted
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.money import HUNDRED, MAX_AMOUNT, PRICE_PLACES, Money, cents, money
from sevdesk_mcp.domain.parts.numbers import next_part_number
from sevdesk_mcp.domain.parts.read import STATUSES
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import read_one
from sevdesk_mcp.domain.whole_lists import read_whole
from sevdesk_mcp.domain.writes import (
    Prepared,
    Progress,
    change_fact,
    post,
    ref,
    reference_name,
    was,
)
from sevdesk_mcp.errors import ToolError, ToolInputError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.fence import clean, fence
from sevdesk_mcp.safety.preview import (
    Fact,
    Piece,
    Plain,
    Preview,
    Said,
    amount,
    fact,
    percent,
    quoted,
    say,
)
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_finance import Part

TaxRate = Literal[0, 7, 19]

ACTIVE: Final = 100
INACTIVE: Final = 50
STOCK_PLACES: Final = 4
NAME: Final = Said("Name", "Bezeichnung")
NET: Final = Said("Net price", "Nettopreis")
RATE: Final = Said("Tax rate", "Steuersatz")
GROSS: Final = Said("Gross price (computed)", "Bruttopreis (berechnet)")
STOCK: Final = Said("Stock", "Bestand")
STATUS: Final = Said("Status", "Status")
STATUS_SAID: Final[dict[str, Said]] = {
    "active": Said("active", "aktiv"),
    "inactive": Said("inactive", "inaktiv"),
}
UPDATE_UNDO: Final = Said(
    "The old values can be set again with another update.",
    "Die alten Werte lassen sich mit einer weiteren Änderung wiederherstellen.",
)


class NewPart(msgspec.Struct, frozen=True):
    """An article to create; without ``part_number`` it gets the next free one."""

    name: str
    part_number: str | None
    unit_id: int
    tax_rate: TaxRate
    net_price: Decimal
    stock: Decimal = Decimal(0)
    text: str | None = None


class PartChanges(msgspec.Struct, frozen=True):
    """Fields to change on an article; ``None`` leaves a field as it is."""

    part_id: int
    name: str | None = None
    net_price: Decimal | None = None
    tax_rate: TaxRate | None = None
    stock: Decimal | None = None
    active: bool | None = None


class PartPlan(msgspec.Struct, frozen=True):
    """The body to send (POST without ``part_id``, else PUT) and what it writes."""

    part_id: int | None
    body: JsonObject
    labels: tuple[str, ...]


class PartWritten(msgspec.Struct, frozen=True, kw_only=True):
    """An article as sevDesk holds it after the write (read back), and what was written."""

    id: int
    part_number: str | None
    name: Untrusted | None
    unit_id: int | None
    tax_rate: Decimal | None
    net_price: Money | None
    gross_price: Money | None
    stock: Decimal | None
    status: str
    written: list[str]


def gross_price(net: Decimal, rate: Decimal) -> Decimal:
    """:returns: net * (1 + rate/100), rounded half-up to cents."""
    return cents(net * (1 + rate / HUNDRED))


def checked_amount(value: Decimal, name: str, places: int) -> Decimal:
    """:returns: ``value`` if it is a finite amount from 0 to below 10^9 with at most
        ``places`` decimal places.

    :raises ToolInputError: naming the argument otherwise.
    """
    if not value.is_finite() or not 0 <= value < MAX_AMOUNT:
        raise ToolInputError(f"{name} must be a decimal number from 0 to below 1000000000.")
    if value != value.quantize(Decimal(1).scaleb(-places)):
        raise ToolInputError(f"{name} takes at most {places} decimal places.")
    return value


async def prepare_create(client: SevdeskPort, new: NewPart) -> Prepared[PartPlan]:
    """Check a new article against sevDesk and plan its creation (reads only).

    :returns: the preview and the plan.
    :raises ToolInputError: for an invalid amount.
    :raises PreconditionError: for an unknown unit, or if an article has the same number
        (naming its id).
    :raises ToolError: without ``part_number``, if the article numbers follow no single pattern.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    price = checked_amount(new.net_price, "net_price", PRICE_PLACES)
    stock = checked_amount(new.stock, "stock", STOCK_PLACES)
    unit = await _unit_name(client, new.unit_id)
    parts = wire.parse_all(await read_whole(client, "/Part", what="articles"), Part)
    if new.part_number is None:
        proposed = next_part_number(p.partNumber for p in parts)
        number = proposed.number
        shown: Piece = say(
            "{0} (the next free number, computed from the existing articles: the highest is {1})",
            "{0} (die nächste freie Nummer, aus den vorhandenen Artikeln berechnet: die höchste "
            "ist {1})",
            number,
            quoted(proposed.highest),
        )
    else:
        number = new.part_number
        shown = quoted(number)
    _refuse_same_number(parts, number)
    gross = gross_price(price, Decimal(new.tax_rate))
    body: JsonObject = {
        "name": new.name,
        "partNumber": number,
        "unity": ref(new.unit_id, "Unity"),
        "taxRate": new.tax_rate,
        "price": _plain(price),
        "priceNet": _plain(price),
        "priceGross": _plain(gross),
        "stock": _plain(stock),
        "stockEnabled": True,
        "status": ACTIVE,
    }
    facts = [
        fact("Article number", "Artikelnummer", shown),
        fact("Name", "Bezeichnung", quoted(new.name)),
        fact("Unit", "Einheit", quoted(unit)),
        fact("Tax rate", "Steuersatz", f"{new.tax_rate} %"),
        fact("Net price", "Nettopreis", amount(price)),
        fact("Gross price (computed)", "Bruttopreis (berechnet)", amount(gross)),
        fact("Stock", "Bestand", _plain(stock)),
    ]
    if new.text:
        body["text"] = new.text
        facts.append(fact("Text", "Beschreibung", quoted(new.text)))
    action = Said("Create a new article in sevDesk", "Neuen Artikel in sevDesk anlegen")
    preview = Preview(action=action, facts=facts)
    return Prepared(preview, PartPlan(None, body, ("article",)))


async def execute_create(client: SevdeskPort, plan: PartPlan, progress: Progress) -> PartWritten:
    """Create the article and read it back.

    :returns: the article as sevDesk holds it.
    :raises UpstreamError: if the write or the read-back fails.
    """
    part_id = await post(client, "Part", plan.body)
    progress.done(f"created article {part_id}")
    return written_part(await read_part(client, part_id), [f"article {part_id}"])


async def prepare_update(client: SevdeskPort, changes: PartChanges) -> Prepared[PartPlan]:
    """Compare the requested changes with the article and plan one PUT (reads only).

    :returns: the preview (each change as ``old → new``) and the plan.
    :raises ToolInputError: for an invalid amount.
    :raises ToolError: if nothing would change.
    :raises NotFoundError: for an unknown article.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    if changes.net_price is not None:
        checked_amount(changes.net_price, "net_price", PRICE_PLACES)
    if changes.stock is not None:
        checked_amount(changes.stock, "stock", STOCK_PLACES)
    current = await read_part(client, changes.part_id)
    body, facts = _changes(changes, current)
    if not body:
        raise ToolError(
            f"Nothing would change: article {changes.part_id} already has these values."
        )
    preview = Preview(
        action=say(
            "Update article {0} in sevDesk", "Artikel {0} in sevDesk ändern", changes.part_id
        ),
        facts=facts,
        undo=UPDATE_UNDO,
    )
    labels = tuple(f.label.en.lower() for f in facts)
    return Prepared(preview, PartPlan(changes.part_id, body, labels))


async def execute_update(client: SevdeskPort, plan: PartPlan, progress: Progress) -> PartWritten:
    """Send the planned PUT and read the article back.

    :returns: the article as sevDesk holds it, with the changed fields.
    :raises UpstreamError: if the write or the read-back fails.
    """
    assert plan.part_id is not None  # an update plan always names its article
    await client.send("PUT", api_path("Part", plan.part_id), json=plan.body)
    progress.done(f"updated article {plan.part_id}")
    written = [f"changed {label}" for label in plan.labels]
    return written_part(await read_part(client, plan.part_id), written)


async def read_part(client: SevdeskPort, part_id: int) -> Part:
    """:returns: the article with id ``part_id``.

    :raises NotFoundError: if there is none.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    return await read_one(client, "Part", part_id, Part)


def written_part(part: Part, written: list[str]) -> PartWritten:
    """:returns: the result DTO of an article write, untrusted text fenced."""
    net = part.priceNet if part.priceNet is not None else part.price
    return PartWritten(
        id=part.id,
        part_number=clean(part.partNumber) or None if part.partNumber else None,
        name=fence(part.name),
        unit_id=part.unity.id if part.unity else None,
        tax_rate=part.taxRate,
        net_price=None if net is None else money(net, None),
        gross_price=None if part.priceGross is None else money(part.priceGross, None),
        stock=part.stock,
        status=STATUSES.get(part.status or 0, f"status {part.status}"),
        written=written,
    )


async def _unit_name(client: SevdeskPort, unit_id: int) -> str:
    unit = await reference_name(client, "Unity", unit_id)
    if unit is None:
        raise PreconditionError(
            f"There is no unit {unit_id}; ",
            Action.LIST_UNITS,
            " lists them (1 is Stk).",
            record=f"unit {unit_id}",
            field="unit_id",
        )
    return unit


def _refuse_same_number(parts: list[Part], part_number: str) -> None:
    wanted = clean(part_number).casefold()
    for part in parts:
        if part.partNumber and clean(part.partNumber).casefold() == wanted:
            raise PreconditionError(
                f"Article {part.id} already has the article number {part_number} (ignoring "
                "case). Update that article instead (",
                Action.UPDATE_PART,
                "), or choose another number.",
                record=f"article {part.id}",
                field="part_number",
            )


def _changes(changes: PartChanges, current: Part) -> tuple[JsonObject, list[Fact]]:
    body: JsonObject = {}
    facts: list[Fact] = []
    if changes.name and changes.name != (current.name or ""):
        body["name"] = changes.name
        facts.append(change_fact(NAME, was(current.name), quoted(changes.name)))
    old_net = current.priceNet if current.priceNet is not None else current.price
    net = old_net if changes.net_price is None else changes.net_price
    if net is not None and net != old_net:
        body.update(price=_plain(net), priceNet=_plain(net))
        facts.append(change_fact(NET, _euros(old_net), amount(net)))
    rate = current.taxRate if changes.tax_rate is None else Decimal(changes.tax_rate)
    if rate is not None and rate != current.taxRate:
        body["taxRate"] = int(rate)
        facts.append(change_fact(RATE, _percent(current.taxRate), percent(rate)))
    if body.keys() & {"priceNet", "taxRate"} and net is not None and rate is not None:
        gross = gross_price(net, rate)
        body["priceGross"] = _plain(gross)
        facts.append(change_fact(GROSS, _euros(current.priceGross), amount(gross)))
    facts += _stock_and_status(changes, current, body)
    return body, facts


def _stock_and_status(changes: PartChanges, current: Part, body: JsonObject) -> list[Fact]:
    facts = []
    if changes.stock is not None and changes.stock != current.stock:
        body["stock"] = _plain(changes.stock)
        old = None if current.stock is None else Plain(_plain(current.stock))
        facts.append(change_fact(STOCK, old, Plain(_plain(changes.stock))))
    status = None if changes.active is None else ACTIVE if changes.active else INACTIVE
    if status is not None and status != current.status:
        body["status"] = status
        facts.append(change_fact(STATUS, _status(current.status), _status(status)))
    return facts


def _plain(value: Decimal) -> str:
    return format(value, "f")


def _euros(value: Decimal | None) -> Piece | None:
    return None if value is None else amount(value)


def _percent(value: Decimal | None) -> Piece | None:
    return None if value is None else percent(value)


def _status(code: int | None) -> Piece:
    name = STATUSES.get(code or 0)
    return STATUS_SAID[name] if name else say("status {0}", "Status {0}", str(code))
