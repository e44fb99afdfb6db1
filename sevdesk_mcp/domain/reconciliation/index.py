"""Indexes over the open documents and the contacts, so that each transaction meets only the
documents that could be its match: the same amount (also after a cash discount), a number its
purpose names, or the contact its IBAN, customer number or name points to."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.reconciliation.model import OpenDoc, Party
from sevdesk_mcp.domain.reconciliation.text import iban, name_tokens, number_keys, prefix_of

HUNDRED: Final = Decimal(100)
CENT: Final = Decimal("0.01")
MAX_WORD_SHARE: Final = 50  # a name word shared by more contacts says nothing
Cents = int | Decimal  # an amount in cents: whole, or a Decimal when it has parts of a cent


def cents_of(amount: Decimal) -> int:
    """:returns: a positive or negative amount in whole cents (the index key)."""
    return int((amount * 100).to_integral_value())


def in_cents(amount: Decimal) -> Cents:
    """:returns: ``amount`` in cents, exactly: an ``int`` when it has no parts of a cent (the
    usual case, fast to compare), else the exact ``Decimal`` (compares just the same)."""
    scaled = amount * 100
    whole = int(scaled)
    return whole if whole == scaled else scaled


def discounted(doc: OpenDoc) -> Decimal | None:
    """:returns: what settles ``doc`` after the cash discount of its terms, if they grant one
    (a percentage and days) and nothing is paid yet."""
    percent = doc.terms.discount_percent
    if percent <= 0 or doc.terms.discount_days <= 0 or doc.open != doc.gross:
        return None
    return (doc.gross * (HUNDRED - percent) / HUNDRED).quantize(CENT)


class DocFacts(msgspec.Struct, frozen=True):
    """What the scorer reads of one document again and again, worked out once.

    :param open: the open amount in cents; ``cheaper`` after the cash discount, if any.
    :param words: the name words of the party of a document without a contact.
    """

    doc: OpenDoc
    open: Cents
    cheaper: Cents | None
    prefix: str
    words: frozenset[str]

    @classmethod
    def of(cls, doc: OpenDoc) -> DocFacts:
        """:returns: the facts of ``doc``."""
        cheaper = discounted(doc)
        return cls(
            doc,
            in_cents(doc.open),
            None if cheaper is None else in_cents(cheaper),
            prefix_of(doc.number),
            name_tokens(doc.party) if doc.contact_id is None else frozenset(),
        )


class DocIndex(msgspec.Struct):
    """The open documents by signed amount in cents, by number key, by contact and by the
    words of the party of a document without a contact (a receipt's supplier name)."""

    by_amount: defaultdict[int, list[OpenDoc]] = msgspec.field(
        default_factory=lambda: defaultdict(list)
    )
    by_number: defaultdict[str, list[OpenDoc]] = msgspec.field(
        default_factory=lambda: defaultdict(list)
    )
    by_contact: defaultdict[int, list[OpenDoc]] = msgspec.field(
        default_factory=lambda: defaultdict(list)
    )
    by_word: defaultdict[str, list[OpenDoc]] = msgspec.field(
        default_factory=lambda: defaultdict(list)
    )
    prefixes: set[str] = msgspec.field(default_factory=set)
    facts: dict[tuple[str, int], DocFacts] = msgspec.field(default_factory=dict)

    @classmethod
    def of(cls, docs: Iterable[OpenDoc]) -> DocIndex:
        """:returns: the index of ``docs``."""
        index = cls()
        for doc in docs:
            index.add(doc)
        return index

    def add(self, doc: OpenDoc) -> None:
        """Index one document."""
        facts = DocFacts.of(doc)
        self.facts.setdefault(doc.key, facts)
        self.by_amount[doc.sign * cents_of(doc.open)].append(doc)
        cheaper = discounted(doc)
        if cheaper is not None:
            self.by_amount[doc.sign * cents_of(cheaper)].append(doc)
        for key in number_keys(doc.number):
            self.by_number[key].append(doc)
        if doc.kind != "voucher":
            self.prefixes.add(facts.prefix)
        if doc.contact_id is not None:
            self.by_contact[doc.contact_id].append(doc)
        else:
            for word in facts.words:
                self.by_word[word].append(doc)

    def facts_of(self, doc: OpenDoc) -> DocFacts:
        """:returns: the facts of ``doc``, worked out when it was indexed."""
        known = self.facts.get(doc.key)
        # two documents with one key (never from sevDesk) each keep their own facts
        return known if known is not None and known.doc is doc else DocFacts.of(doc)


class PartyIndex(msgspec.Struct):
    """The contacts by IBAN, customer number and name word."""

    by_id: dict[int, Party] = msgspec.field(default_factory=dict)
    by_iban: defaultdict[str, list[Party]] = msgspec.field(
        default_factory=lambda: defaultdict(list)
    )
    by_customer: dict[str, Party] = msgspec.field(default_factory=dict)
    by_word: defaultdict[str, list[Party]] = msgspec.field(
        default_factory=lambda: defaultdict(list)
    )
    words: dict[int, frozenset[str]] = msgspec.field(default_factory=dict)

    @classmethod
    def of(cls, parties: Iterable[Party]) -> PartyIndex:
        """:returns: the index of ``parties``."""
        index = cls()
        for party in parties:
            index.add(party)
        return index

    def add(self, party: Party) -> None:
        """Index one contact."""
        self.by_id[party.id] = party
        compact = iban(party.iban)
        if compact:
            self.by_iban[compact].append(party)
        if party.customer_number:
            self.by_customer[party.customer_number.strip().lstrip("0")] = party
        words = name_tokens(party.name)
        self.words[party.id] = words
        for word in words:
            self.by_word[word].append(party)

    def named(self, seen: frozenset[str]) -> set[int]:
        """:returns: the contacts sharing a telling word with the name ``seen``."""
        found: set[int] = set()
        for word in seen:
            hits = self.by_word.get(word, [])
            if len(hits) <= MAX_WORD_SHARE:
                found.update(p.id for p in hits)
        return found
