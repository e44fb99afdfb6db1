"""What the VAT figures assume about the company, and where each value came from: the VAT
method (Soll unless the tax office granted Ist, §§16, 20 UStG) and the small-business status
(§19 UStG). Neither is in sevDesk's API except ``smallSettlement`` on its documents; the rest
comes from the caller or the settings, else the statutory default, and every answer says so."""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.domain.reports.books import Books
from sevdesk_mcp.domain.reports.company import Fact, VatMethod, small_business_of

Method = VatMethod
SOLL_DEFAULT: Final = (
    "assumed: Soll, the statutory default (§16(1) UStG); set SEVDESK_VAT_METHOD=ist if your "
    "tax office granted Ist (§20 UStG)"
)


class Assumption(Fact, frozen=True, kw_only=True):
    """One fact a figure rests on: what it is about, its value and where it came from."""

    subject: str


class VatBasis(msgspec.Struct, frozen=True, kw_only=True):
    """What the caller knows: the method and where it came from, the small-business setting.

    :param method: ``None``: neither asked for nor set (Soll is assumed).
    """

    method: Method | None = None
    method_source: str = ""
    small_business: bool | None = None


class Resolved(msgspec.Struct, frozen=True, kw_only=True):
    """The method and status the return is computed by, with the stated assumptions."""

    method: Method
    small_business: bool
    assumptions: list[Assumption]


def resolve(basis: VatBasis, books: Books) -> Resolved:
    """:returns: the method and small-business status for ``books``, each with its source."""
    method: Method = basis.method or "soll"
    method_source = basis.method_source if basis.method else SOLL_DEFAULT
    small, status = small_business_of(basis.small_business, books)
    return Resolved(
        method=method,
        small_business=small,
        assumptions=[
            Assumption(subject="VAT method", value=method, source=method_source),
            Assumption(
                subject="small business (§19 UStG)", value=status.value, source=status.source
            ),
        ],
    )
