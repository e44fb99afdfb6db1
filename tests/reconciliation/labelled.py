"""A labelled set of bank transactions against open documents, generated with a seed.

Every transaction carries its right answer (the documents it pays, or none) and whether a human
could tell it from the statement alone (``ambiguous``: two open documents of the same contact
with the same amount and no number). The shapes follow real statements: clean numbers, numbers
in other spellings and OCR-garbled, no number but the IBAN, cash discounts, bank fees,
collective payments, instalments, refunds against credit notes, supplier payments against
receipts, private withdrawals, fees and taxes, and wrong references. Amounts of distractors
repeat across contacts (119.00, 238.00 …) as they do in real books.

Each case also carries the settle the table of ``../shared/docs/german-tax-rules.md`` section 4
says (``settle``) and whether a human must ask before booking (``ask``: Skonto the invoice does
not grant or after its days, a shortfall the statement does not explain, an overpayment); those
are never confident. The differences are made after the distractors with an rng of their own,
so the cases and books before them are the same as without them.

Label correction (issue 37): the bank-fee shape used to be a shortfall of a few euros with no
word of charges in the purpose (``INV RE-… / SWIFT``), which taught that a small difference is
fees by itself. Its statements now carry the bank's charge line (a charge code, ``/CHGS/`` or
a word of charges), as statements of deducted charges do.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from sevdesk_mcp.domain.reconciliation.model import OpenDoc, Party, Terms, Tx

START = dt.date(2026, 10, 1)
COMMON = [Decimal(x) for x in ("119.00", "238.00", "59.50", "595.00", "1190.00", "297.50")]
FIRSTS = ["Holz", "Stadt", "Berg", "Rhein", "Alpen", "Nord", "Süd", "Wald", "See", "Sonnen"]
SECONDS = ["bäckerei", "bau", "technik", "handel", "werk", "küchen", "druck", "logistik"]
FORMS = ["GmbH", "KG", "AG", "e.K.", "GmbH & Co. KG", "UG"]


@dataclass(frozen=True, slots=True)
class Labelled:
    """A transaction and its right answer."""

    tx: Tx
    expected: frozenset[tuple[str, int]]
    ambiguous: bool
    shape: str
    settle: str | None = None
    ask: bool = False


@dataclass(slots=True)
class World:
    """The books a labelled set is scored against."""

    rng: random.Random
    parties: list[Party] = field(default_factory=list)
    docs: list[OpenDoc] = field(default_factory=list)
    cases: list[Labelled] = field(default_factory=list)
    next_id: int = 1000
    next_tx: int = 1

    def ident(self) -> int:
        self.next_id += 1
        return self.next_id

    def party(self) -> Party:
        rng = self.rng
        name = f"{rng.choice(FIRSTS)}{rng.choice(SECONDS)} {rng.choice(['Meyer', 'Klein', 'Vogt', 'Roth', 'Huber', 'Brandt', 'Keller'])} {rng.choice(FORMS)}"
        ident = self.ident()
        iban = f"DE{rng.randrange(10, 99)}{rng.randrange(10**17, 10**18)}"
        party = Party(ident, name, iban, str(10000 + ident))
        self.parties.append(party)
        return party

    def doc(self, party: Party | None, kind: str = "invoice", **kw: object) -> OpenDoc:
        rng = self.rng
        ident = self.ident()
        gross = kw.pop("gross", None) or Decimal(rng.randrange(5_000, 800_000)) / 100
        prefix = {"invoice": "RE-", "credit_note": "GU-", "voucher": ""}[kind]
        number = (
            f"{prefix}{ident}"
            if kind != "voucher"
            else f"{rng.choice(['R', 'INV-', '2026-', 'Rg'])}{rng.randrange(10**4, 10**6)}"
        )
        issued = START + dt.timedelta(days=rng.randrange(0, 40))
        sign = {"invoice": 1, "credit_note": -1, "voucher": -1}[kind]
        doc = OpenDoc(
            kind=kind,  # type: ignore[arg-type]
            id=ident,
            number=number,
            contact_id=party.id if party and kind != "voucher" else None,
            party=party.name if party else None,
            sign=sign,
            gross=gross,  # type: ignore[arg-type]
            open=kw.pop("open", None) or gross,  # type: ignore[arg-type]
            currency="EUR",
            issued=issued,
            terms=kw.pop("terms", None) or Terms(14),  # type: ignore[arg-type]
        )
        self.docs.append(doc)
        return doc

    def tx(
        self,
        amount: Decimal,
        purpose: str,
        party: Party | None,
        day: dt.date,
        *,
        name: str | None = None,
        iban: bool = True,
    ) -> Tx:
        self.next_tx += 1
        return Tx(
            id=self.next_tx,
            account_id=1,
            amount=amount,
            rest=abs(amount),
            day=day,
            counterparty=name if name is not None else (party.name if party else None),
            iban=party.iban if party and iban else None,
            purpose=purpose,
        )

    def add(
        self,
        tx: Tx,
        docs: list[OpenDoc],
        shape: str,
        ambiguous: bool = False,
        *,
        settle: str | None = "full",
        ask: bool = False,
    ) -> None:
        keys = frozenset(d.key for d in docs)
        self.cases.append(Labelled(tx, keys, ambiguous, shape, settle if docs else None, ask))


def _after(world: World, doc: OpenDoc, lo: int = 2, hi: int = 25) -> dt.date:
    assert doc.issued is not None
    return doc.issued + dt.timedelta(days=world.rng.randrange(lo, hi))


def _spell(world: World, number: str) -> str:
    digits = number.rsplit("-", maxsplit=1)[-1]
    rng = world.rng
    style = rng.randrange(6)
    if style == 0:
        return f"RE {digits}"
    if style == 1:
        return f"Re.-Nr. {digits}"
    if style == 2:
        return f"RE{digits}"
    if style == 3:  # OCR confusions
        return "RE-" + digits.replace("0", "O", 1).replace("1", "l", 1)
    if style == 4:
        return f"Rechnungsnr {digits}"
    return f"Rechnung Nr. {digits}"


def clean(world: World) -> None:
    party = world.party()
    doc = world.doc(party)
    purpose = world.rng.choice(["Rechnung {n}", "{n}", "RG {n} vielen Dank", "Zahlung {n} Kd {c}"])
    text = purpose.format(n=doc.number, c=party.customer_number)
    world.add(
        world.tx(doc.open, text, party, _after(world, doc), iban=world.rng.random() < 0.7),
        [doc],
        "clean",
    )


def spelled(world: World) -> None:
    party = world.party()
    doc = world.doc(party)
    assert doc.number
    world.add(
        world.tx(doc.open, f"{_spell(world, doc.number)} {party.name}", party, _after(world, doc)),
        [doc],
        "spelled",
    )


def iban_only(world: World) -> None:
    party = world.party()
    doc = world.doc(party)
    world.doc(party)  # another open document of the contact, another amount
    world.add(world.tx(doc.open, "Ueberweisung", party, _after(world, doc)), [doc], "iban_only")


def discount(world: World) -> None:
    party = world.party()
    doc = world.doc(party, terms=Terms(30, Decimal(2), 10))
    paid = (doc.gross * Decimal("0.98")).quantize(Decimal("0.01"))
    world.add(
        world.tx(paid, f"{doc.number} abzgl. 2% Skonto", party, _after(world, doc, 1, 9)),
        [doc],
        "cash_discount",
        settle="cash_discount",
    )


def fees(world: World) -> None:
    party = world.party()
    doc = world.doc(party, gross=Decimal(world.rng.randrange(80_000, 900_000)) / 100)
    fee = Decimal(world.rng.choice(["7.50", "12.00", "15.00", "4.90"]))
    line = CHARGE_LINES[doc.id % len(CHARGE_LINES)].format(fee=f"{fee:.2f}".replace(".", ","))
    world.add(
        world.tx(
            doc.open - fee,
            f"INV {doc.number} / SWIFT {line}",
            party,
            _after(world, doc),
            iban=False,
        ),
        [doc],
        "fees",
        settle="fees",
    )


CHARGE_LINES = ("SHA", "/CHGS/EUR{fee}", "Fremdspesen {fee} EUR", "abzgl. Bankgebuehren", "71A:BEN")


def collective(world: World) -> None:
    party = world.party()
    docs = [world.doc(party) for _ in range(world.rng.choice([2, 3, 3]))]
    total = sum((d.open for d in docs), Decimal(0))
    names = ", ".join(
        _spell(world, d.number or "") if i else (d.number or "") for i, d in enumerate(docs)
    )
    world.add(
        world.tx(total, f"Sammelueberweisung {names}", party, _after(world, docs[-1], 5, 30)),
        docs,
        "collective",
    )


def instalment(world: World) -> None:
    party = world.party()
    gross = Decimal(world.rng.randrange(150_000, 900_000)) / 100
    doc = world.doc(party, gross=gross)
    part = (gross / 3).quantize(Decimal("0.01"))
    for n in (1, 2):
        text = f"Rate {n}/3 {doc.number}"
        world.add(
            world.tx(part, text, party, _after(world, doc, 5 + 30 * (n - 1), 30 * n)),
            [doc],
            "instalment",
            settle="partial",
        )


def partial(world: World) -> None:
    party = world.party()
    doc = world.doc(party)
    paid = (doc.open * Decimal("0.4")).quantize(Decimal("0.01"))
    world.add(
        world.tx(paid, f"Anzahlung {doc.number}", party, _after(world, doc)),
        [doc],
        "partial",
        settle="partial",
    )


def refund(world: World) -> None:
    party = world.party()
    world.doc(party)
    note = world.doc(party, "credit_note", gross=world.rng.choice(COMMON))
    world.add(
        world.tx(-note.open, f"Gutschrift {note.number}", party, _after(world, note)),
        [note],
        "refund",
    )


def supplier(world: World) -> None:
    party = world.party()
    voucher = world.doc(party, "voucher")
    world.add(
        world.tx(
            -voucher.open,
            f"{voucher.number} Kundennr 4711",
            party,
            _after(world, voucher),
            name=party.name,
        ),
        [voucher],
        "supplier",
    )


NOTHING = [
    ("Lena Sonnenberg", "Privatentnahme November", "-500.00"),
    ("Dreisambank eG", "Kontofuehrungsentgelt 10/2026", "-12.90"),
    ("Finanzamt Freiburg-Stadt", "USt-VA 10/2026 StNr 06/123/45678", "-1834.12"),
    ("Dreisambank eG", "Habenzinsen 3. Quartal", "4.12"),
    ("Bundeskasse", "Kfz-Steuer FR-HS 123", "-238.00"),
    ("Lena Sonnenberg", "Privateinlage", "2000.00"),
]


def nothing(world: World) -> None:
    name, purpose, amount = world.rng.choice(NOTHING)
    day = START + dt.timedelta(days=world.rng.randrange(0, 60))
    world.add(world.tx(Decimal(amount), purpose, None, day, name=name), [], "nothing")


def ambiguous(world: World) -> None:
    party = world.party()
    amount = world.rng.choice(COMMON)
    first, second = world.doc(party, gross=amount), world.doc(party, gross=amount)
    tx = world.tx(amount, "Danke fuer den Auftrag", party, _after(world, second))
    world.add(tx, [first], "ambiguous", ambiguous=True)


def name_only(world: World) -> None:
    party = world.party()
    doc = world.doc(party)
    world.add(
        world.tx(doc.open, "Zahlung", party, _after(world, doc), iban=False), [doc], "name_only"
    )


def typo(world: World) -> None:
    party = world.party()
    doc = world.doc(party)
    digits = str(doc.id)
    wrong = (
        digits[:-2] + digits[-1] + digits[-2]
        if digits[-1] != digits[-2]
        else digits[:-1] + str((int(digits[-1]) + 1) % 10)
    )
    world.add(world.tx(doc.open, f"Rechnung {wrong}", party, _after(world, doc)), [doc], "typo")


def wrong_reference(world: World) -> None:
    party = world.party()
    named, paid = world.doc(party), world.doc(party)
    tx = world.tx(paid.open, f"Rechnung {named.number}", party, _after(world, paid))
    world.add(tx, [paid], "wrong_reference", ambiguous=True)  # a human must ask


SHAPES: list[tuple[Callable[[World], None], int]] = [
    (clean, 26), (spelled, 14), (iban_only, 9), (discount, 6), (fees, 5), (collective, 6),
    (instalment, 3), (partial, 4), (refund, 5), (supplier, 8), (nothing, 8), (ambiguous, 4),
    (name_only, 4), (typo, 4), (wrong_reference, 3),
]  # fmt: skip


def _gross(world: World, percent: int) -> Decimal:
    """:returns: a gross amount whose ``percent`` is at most 25.00 EUR (the old fee bound)."""
    return Decimal(world.rng.randrange(10_000, 250_000 // percent)) / 100


def untermed_skonto(world: World) -> None:
    """The defect of issue 37: Skonto taken on an invoice that grants none; stays open."""
    party, percent = world.party(), world.rng.choice([2, 2, 3])
    doc = world.doc(party, gross=_gross(world, percent))
    paid = (doc.gross * (100 - percent) / 100).quantize(Decimal("0.01"))
    text = world.rng.choice(["{n} abzgl. {p}% Skonto", "RE {n}", "{n} Skonto {p}%"])
    tx = world.tx(paid, text.format(n=doc.number, p=percent), party, _after(world, doc, 1, 9))
    world.add(tx, [doc], "untermed_skonto", settle="short", ask=True)


def late_skonto(world: World) -> None:
    """Skonto after its days (10 days, 3 of grace): stays open."""
    party = world.party()
    doc = world.doc(party, gross=_gross(world, 2), terms=Terms(30, Decimal(2), 10))
    paid = (doc.gross * Decimal("0.98")).quantize(Decimal("0.01"))
    tx = world.tx(paid, f"{doc.number} abzgl. 2% Skonto", party, _after(world, doc, 15, 40))
    world.add(tx, [doc], "late_skonto", settle="short", ask=True)


def unexplained(world: World) -> None:
    """A few euros short, no word of charges: stays open."""
    party = world.party()
    doc = world.doc(party, gross=Decimal(world.rng.randrange(70_000, 500_000)) / 100)
    short = Decimal(world.rng.randrange(100, 2_000)) / 100
    tx = world.tx(doc.open - short, f"Rechnung {doc.number}", party, _after(world, doc))
    world.add(tx, [doc], "unexplained", settle="short", ask=True)


def overpaid(world: World) -> None:
    """More than open: the open amount is booked, the surplus stays unbooked; ask."""
    party = world.party()
    doc = world.doc(party)
    more = Decimal(world.rng.randrange(500, 6_000)) / 100
    tx = world.tx(doc.open + more, f"RE {doc.number}", party, _after(world, doc))
    world.add(tx, [doc], "overpaid", settle="full", ask=True)


DIFFERENCES: list[Callable[[World], None]] = [untermed_skonto, late_skonto, unexplained, overpaid]


def labelled_set(
    seed: int = 2126, size: int = 320, distractors: int = 400, differences: int = 8
) -> World:
    """:returns: ``size`` or more labelled transactions, then ``differences`` of each kind of
    difference (:data:`DIFFERENCES`), and the books they are scored against."""
    world = World(random.Random(seed))
    makers = [m for m, weight in SHAPES for _ in range(weight)]
    while len(world.cases) < size:
        world.rng.choice(makers)(world)
    for _ in range(distractors):  # open documents nobody pays this month
        party = world.party() if world.rng.random() < 0.5 else world.rng.choice(world.parties)
        amount = world.rng.choice(COMMON) if world.rng.random() < 0.3 else None
        world.doc(party, gross=amount) if amount else world.doc(party)
    world.rng = random.Random(seed + 37)  # the cases and books above stay as they were
    for maker in DIFFERENCES:
        for _ in range(differences):
            maker(world)
    return world
