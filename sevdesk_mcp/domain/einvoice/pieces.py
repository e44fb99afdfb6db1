"""The text-only model pieces both readers build alike: each syntax names where it keeps the
values (paths relative to the piece's element), these functions read them. None of them
raises: they read text and dates, never amounts (those are in :mod:`.amounts`)."""

from __future__ import annotations

import msgspec

from sevdesk_mcp.domain.einvoice.model import Address, Contact, Party, PaymentMeans, Period
from sevdesk_mcp.domain.einvoice.nodes import Node


class AddressPaths(msgspec.Struct, frozen=True):
    """Where one syntax keeps a postal address's values (BG-5, BG-8, BG-15)."""

    street: str
    city: str
    post_code: str
    country: str


class PeriodPaths(msgspec.Struct, frozen=True):
    """Where one syntax keeps an invoicing period's dates (BG-14, BG-26)."""

    start: str
    end: str


class ContactPaths(msgspec.Struct, frozen=True):
    """Where one syntax keeps a contact's values (BG-6, BG-9); ``names`` in the order tried."""

    names: tuple[str, ...]
    phone: str
    email: str


class RepresentativePaths(msgspec.Struct, frozen=True):
    """Where one syntax keeps the seller's tax representative's values (BG-11); ``address``
    is the postal address element, read with ``address_paths``."""

    name: str
    vat_id: str
    address: str
    address_paths: AddressPaths


class MeansPaths(msgspec.Struct, frozen=True):
    """Where one syntax keeps a payment instruction's values (BG-16); ``ibans`` are read in
    turn, ``card`` is the element whose presence means a card payment, ``mandate`` is
    ``None`` where the syntax has none."""

    code: str
    text: str
    ibans: tuple[str, ...]
    bic: str
    card: str
    mandate: str | None
    debited_account: str


def address(node: Node, paths: AddressPaths) -> Address | None:
    """:returns: the postal address of ``node``, or ``None`` if it is absent."""
    if node.el is None:
        return None
    return Address(
        street=node.text(paths.street),
        city=node.text(paths.city),
        post_code=node.text(paths.post_code),
        country=node.text(paths.country),
    )


def period(node: Node, paths: PeriodPaths) -> Period | None:
    """:returns: the invoicing period of ``node``, or ``None`` if it is absent."""
    if node.el is None:
        return None
    return Period(start=node.date(paths.start), end=node.date(paths.end))


def contact(node: Node, paths: ContactPaths) -> Contact | None:
    """:returns: the contact of ``node`` (its first name found), or ``None`` if it is absent."""
    if node.el is None:
        return None
    name = None
    for path in paths.names:
        if name := node.text(path):
            break
    return Contact(name=name, phone=node.text(paths.phone), email=node.text(paths.email))


def representative(node: Node, paths: RepresentativePaths) -> Party | None:
    """:returns: the tax representative of ``node``, or ``None`` if it is absent."""
    if node.el is None:
        return None
    return Party(
        name=node.text(paths.name),
        vat_id=node.text(paths.vat_id),
        address=address(node.child(paths.address), paths.address_paths),
    )


def means(node: Node, paths: MeansPaths) -> PaymentMeans:
    """:returns: the payment instruction of ``node``."""
    return PaymentMeans(
        code=node.text(paths.code),
        text=node.text(paths.text),
        ibans=node.texts(*paths.ibans),
        bic=node.text(paths.bic),
        card=node.find(paths.card) is not None,
        mandate=node.text(paths.mandate) if paths.mandate else None,
        debited_account=node.text(paths.debited_account),
    )
