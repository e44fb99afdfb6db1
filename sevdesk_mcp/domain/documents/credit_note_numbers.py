"""Credit-note numbers from sevDesk's number range (Nummernkreis, ``docs/sevdesk-api.md`` Q35).

sevDesk refuses to finalize a credit note without a number from its sequence, so a draft takes
one when it is created. Whether reading the sequence moves it on is unverified (D-066: one
source saw it move only when a document is enshrined), so the number is checked against the
existing credit notes twice: when the draft is previewed, and again after it was taken.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

from sevdesk_mcp.domain.documents.kinds import KINDS
from sevdesk_mcp.domain.documents.search import list_documents
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.errors import MalformedResponseError, ToolError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.sevdesk.paths import QueryValue

SEQUENCE: Final = "/SevSequence/Factory/getByType"
_QUERY: Final[dict[str, QueryValue]] = {"objectType": "CreditNote", "type": "CN"}


async def peek_number(client: SevdeskPort, today: dt.date) -> str:
    """:returns: the next credit-note number, without taking it (``useNextNumber=false``), its
        date parts from the books' ``today``.

    :raises ToolError: if a credit note already carries it.
    :raises MalformedResponseError: if sevDesk's answer holds no number.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    number = formatted(await client.get(SEQUENCE, {**_QUERY, "useNextNumber": False}), today)
    await refuse_used(client, number)
    return number


async def take_number(client: SevdeskPort, today: dt.date) -> str:
    """Take the next credit-note number (this may reserve it in sevDesk).

    :returns: the formatted number, e.g. ``GU-1005``, its date parts from the books' ``today``.
    :raises MalformedResponseError: if sevDesk's answer holds no number.
    :raises UpstreamError: if sevDesk cannot be reached.
    """
    return formatted(await client.send("GET", SEQUENCE, query=_QUERY), today)


async def refuse_used(client: SevdeskPort, number: str) -> None:
    """:raises ToolError: if a credit note already carries ``number``, naming it and the fix.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    kind = KINDS["credit_note"]
    for note in await list_documents(client, kind, {"creditNoteNumber": number}, whole=True):
        if note.creditNoteNumber == number:
            raise ToolError(
                f"The next credit note number {number} is already used by credit note "
                f"{note.id}: sevDesk's number range (Nummernkreis) has not moved on. Finalize "
                "or delete that credit note first, or correct the number range in the sevDesk "
                "settings, then try again."
            )


def formatted(answer: JsonValue, today: dt.date) -> str:
    """:returns: the number in the sequence's format (``%YYYY``, ``%YY``, ``%MM`` of ``today``,
        ``%NUMBER``).

    :raises MalformedResponseError: if the answer holds no number.
    """
    if isinstance(answer, str | int) and not isinstance(answer, bool):
        return str(answer)
    if isinstance(answer, dict):
        sequence, pattern = answer.get("nextSequence"), answer.get("format")
        if isinstance(sequence, str | int) and not isinstance(sequence, bool):
            if isinstance(pattern, str) and "%NUMBER" in pattern:
                return (
                    pattern.replace("%YYYY", f"{today:%Y}")
                    .replace("%YY", f"{today:%y}")
                    .replace("%MM", f"{today:%m}")
                    .replace("%NUMBER", str(sequence))
                )
            return str(sequence)
    raise MalformedResponseError(
        "sevDesk's number sequence answered without a next number; check the number ranges "
        "(Nummernkreise) in the sevDesk settings."
    )
