"""Bookkeeping system 1.0 or 2.0, per object.

Update 2.0 replaced ``taxType`` with ``taxRule`` on documents and vouchers, and booking accounts
(``accountingType``) with ``accountDatev`` on voucher positions. One account can hold objects of
both generations, so each object is read by what it carries, with the account's version as the
fallback (sevdesk-api sections 3.4 and 3.5).
"""

from __future__ import annotations

from typing import Literal

from sevdesk_mcp.jsontypes import JsonValue

System = Literal["1.0", "2.0"]


def object_system(obj: dict[str, JsonValue], account: System) -> System:
    """:returns: the generation of a document, voucher or voucher position."""
    if _set(obj.get("taxRule")) or _set(obj.get("accountDatev")):
        return "2.0"
    if _set(obj.get("taxType")) or _set(obj.get("accountingType")):
        return "1.0"
    return account


def _set(value: JsonValue) -> bool:
    return value not in (None, "", {}, [])
