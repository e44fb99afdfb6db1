"""The next free article number, computed from the articles there are.

sevDesk has a next-number endpoint for customer numbers (GET
/Contact/Factory/getNextCustomerNumber) and number sequences for documents, but none for
articles (``docs/sevdesk-api.md`` §2.3 and the OpenAPI file list only /Part, /Part/{id} and
/Part/{id}/getStock). So the next number is computed here: every article number that ends in
digits is split into its prefix and that number (``HS-1004`` is ``HS-`` and 1004, ``1001`` is no
prefix and 1001); when all of them share one prefix (ignoring case), the next number is that
prefix and the highest number plus one, keeping its leading zeros (``HS-0099`` → ``HS-0100``).
Article numbers without digits at the end are no pattern and are left out. No numbered
article, or several prefixes, is no pattern: the caller is told to give a number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

import msgspec

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.fence import clean

_NUMBERED: Final = re.compile(r"^(.*?)([0-9]+)$")
MAX_PREFIXES_NAMED: Final = 5


class NextNumber(msgspec.Struct, frozen=True):
    """The proposed number, and the highest article number it follows (for the preview)."""

    number: str
    highest: str


def next_part_number(numbers: Iterable[str | None]) -> NextNumber:
    """:returns: the highest article number of the one common pattern, plus one.

    :raises ToolError: if no article number ends in digits, or the numbered ones use several
        prefixes (naming them); the message says to give ``part_number``.
    """
    groups: dict[str, list[tuple[int, str, str]]] = {}
    for raw in numbers:
        match = _NUMBERED.match(clean(raw or ""))
        if match:
            prefix, digits = match.groups()
            groups.setdefault(prefix.casefold(), []).append((int(digits), prefix, digits))
    if not groups:
        raise ToolError(
            "No article has a number ending in digits, so there is no pattern to continue: "
            "give part_number (for example 1001 or ART-1001)."
        )
    if len(groups) > 1:
        raise ToolError(
            f"The article numbers follow {len(groups)} patterns ({_patterns(groups)}), so "
            "there is no single next number: give part_number."
        )
    (rows,) = groups.values()
    highest, prefix, digits = max(rows)
    number = f"{prefix}{highest + 1:0{len(digits)}d}"
    return NextNumber(number, f"{prefix}{digits}")


def _patterns(groups: dict[str, list[tuple[int, str, str]]]) -> str:
    examples = [max(rows)[1] + "…" if max(rows)[1] else "digits only" for rows in groups.values()]
    shown = sorted(examples)[:MAX_PREFIXES_NAMED]
    more = len(examples) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
