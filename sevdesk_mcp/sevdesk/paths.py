"""Request paths: built and validated before anything is sent, and classified by side effect.

Every path is made of API words (``Contact``, ``getPositions``) and numeric ids; nothing else
can reach sevDesk, so an id from the model cannot smuggle ``..``, ``?`` or a second path.

:func:`minimum_tier` tells the write gate what a request needs (ADR 0003 of the seed):

- ``commit``: ``sendBy``, ``bookAmount``, ``enshrine``, ``cancelInvoice``, ``resetToDraft``,
  ``resetToOpen``, ``changeParameter``, ``PUT``/``DELETE`` of a bank transaction, a ``getPdf``
  without ``preventSendBy`` (it marks the document sent, sevdesk-api Q21), DATEV export jobs
  with ``enshrineDocuments`` and the deprecated ``Export/datevCSV`` with ``enshrine`` (any
  value but an exact ``false``/``0``, or the key as an array: PHP reads them as true); the
  action words also on a GET; path words are compared in any case (as ``domain/api_get.py``
  does);
- ``commit`` too: a ``saveVoucher`` whose voucher is not a draft (status other than 50: the
  receipt's finalize);
- ``external``: ``sendViaEmail`` and ``sendByWithRender`` (they reach third parties);
- ``write``: every other request that is not a plain GET, and ``SevSequence/Factory/getByType``
  unless ``useNextNumber=false`` (it may reserve a document number);
- ``None``: a plain read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from sevdesk_mcp.errors import WriteRefusedError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.tiers import Tier

DEFAULT_API_URL: Final = "https://my.sevdesk.de/api/v1"  # the API root of every sevDesk account
MAX_ID: Final = 10**15
_WORD: Final = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,63}$")
_PATH: Final = re.compile(r"^(/(?:[A-Za-z][A-Za-z0-9]{0,63}|[1-9][0-9]{0,14}))+$")
_QUERY_KEY: Final = re.compile(
    r"^[A-Za-z][A-Za-z0-9_]{0,63}(\[[A-Za-z]{1,32}\]){0,3}$"
)  # sevQuery nests
_COMMIT_ACTIONS: Final = frozenset(  # lower case: sevDesk (PHP) routes words in any case
    {
        "sendby",
        "bookamount",
        "enshrine",
        "cancelinvoice",
        "resettodraft",
        "resettoopen",
        "changeparameter",
    }
)
_EXTERNAL_ACTIONS: Final = frozenset({"sendviaemail", "sendbywithrender"})
_TRUE: Final = frozenset({"1", "true"})
_FALSE: Final = frozenset({"0", "false"})  # exact: PHP reads anything else as true

QueryValue = str | int | bool


def api_path(*parts: str | int) -> str:
    """Build a path from API words and ids.

    :raises WriteRefusedError: if a word is not an API word or an id not a positive integer.
    """
    out = []
    for part in parts:
        if isinstance(part, bool) or not isinstance(part, str | int):
            raise WriteRefusedError(
                f"Refused a request: a path part of type {type(part).__name__}; ids must be "
                "whole numbers"
            )
        if isinstance(part, int):
            if not 0 < part < MAX_ID:
                raise WriteRefusedError("An id must be a positive whole number")
            out.append(str(part))
        elif _WORD.match(part):
            out.append(part)
        else:
            raise WriteRefusedError(
                "Refused a request with an invalid path segment; only sevDesk resource names "
                "and numeric ids are sent"
            )
    return "/" + "/".join(out)


def check_path(path: str) -> str:
    """:returns: ``path`` unchanged if it is made of API words and ids only.

    :raises WriteRefusedError: otherwise.
    """
    if not _PATH.match(path):
        raise WriteRefusedError("Refused an invalid sevDesk path")
    return path


def encode_query(query: Mapping[str, QueryValue]) -> dict[str, str]:
    """:returns: the query as strings; booleans as ``true``/``false``.

    :raises WriteRefusedError: for a key that is not a plain or bracketed API word.
    """
    out = {}
    for key, value in query.items():
        if not _QUERY_KEY.match(key):
            raise WriteRefusedError("Refused an invalid query parameter name")
        out[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


def minimum_tier(
    method: str, path: str, query: Mapping[str, str], body: JsonObject | None = None
) -> Tier | None:
    """:returns: the tier a request needs, or ``None`` for a plain read."""
    segments = path.strip("/").lower().split("/")
    last = segments[-1]
    if method == "GET":
        return _get_tier(segments, query)
    if last == "savevoucher" and not _voucher_draft(body):
        return Tier.COMMIT  # status 100: the receipt enters the books
    if last in _EXTERNAL_ACTIONS:
        return Tier.EXTERNAL
    if last in _COMMIT_ACTIONS:
        return Tier.COMMIT
    if segments[0] == "checkaccounttransaction" and len(segments) == 2:
        return Tier.COMMIT  # private marking and reset of a bank transaction
    return Tier.WRITE


def _voucher_draft(body: JsonObject | None) -> bool:
    voucher = body.get("voucher") if body is not None else None
    status = voucher.get("status") if isinstance(voucher, dict) else None
    return str(status) == "50"


def _get_tier(segments: list[str], query: Mapping[str, str]) -> Tier | None:
    last = segments[-1]  # segments are lower case
    if last == "getpdf" and query.get("preventSendBy", "").lower() not in _TRUE:
        return Tier.COMMIT
    if last in _EXTERNAL_ACTIONS:
        return Tier.EXTERNAL
    if last in _COMMIT_ACTIONS or _enshrines(last, query):
        return Tier.COMMIT  # an action word changes data whatever the method
    if segments[:3] == ["sevsequence", "factory", "getbytype"]:
        return None if query.get("useNextNumber", "").lower() in ("false", "0") else Tier.WRITE
    return None


def _enshrines(last: str, query: Mapping[str, str]) -> bool:
    """:returns: whether a DATEV export job enshrines (the deprecated ``Export/datevCSV``
    with ``enshrine``, the export jobs with ``enshrineDocuments``)."""
    if last.startswith("createdatev"):
        return _flag_set(query, "enshrinedocuments")
    return last == "datevcsv" and _flag_set(query, "enshrine")


def _flag_set(query: Mapping[str, str], name: str) -> bool:
    """:returns: whether ``query`` may set the flag ``name`` (lower case): sevDesk (PHP) reads
    any value but an exact ``false``/``0`` as true, and ``name[]`` as an array (true)."""
    for key, value in query.items():
        base, bracket, _ = key.partition("[")
        if base.lower() == name and (bracket or value not in _FALSE):
            return True
    return False
