"""The shared words of tool inputs: ids, email addresses, the dry run, and the annotations.

A tool module states its own arguments with these types instead of repeating bounds and
patterns, so every id is bounded the way request paths are (``MAX_ID`` of
:mod:`sevdesk_mcp.sevdesk.paths`) and every email address is checked by the same pattern. A
field adds its description: ``Annotated[SevdeskId, msgspec.Meta(description="The customer")]``.

The schema pattern of :data:`Email` is deliberately loose (something, ``@``, a dotted domain);
the recipients of an email are checked for real in
:mod:`sevdesk_mcp.domain.documents.email_address`.
"""

from __future__ import annotations

from typing import Annotated, Final

import msgspec

from sevdesk_mcp.domain.records import MAX_ID
from sevdesk_mcp.errors import ToolInputError
from sevdesk_mcp.safety.fence import unfenced
from sevdesk_mcp.tools.define import Annotations

SevdeskId = Annotated[int, msgspec.Meta(ge=1, le=MAX_ID)]
"""A sevDesk object id, bounded as request paths are."""

DocumentId = SevdeskId

EMAIL_PATTERN: Final = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
Email = Annotated[str, msgspec.Meta(max_length=254, pattern=EMAIL_PATTERN)]
"""An email address (RFC 5321's length limit, one ``@``, a dotted domain)."""

DryRun = bool
"""The ``dryRun`` argument every write tool has: what it does is said once, in the server
instructions (:func:`sevdesk_mcp.server.instructions`), not in every tool's schema."""

Limit = Annotated[int, msgspec.Meta(ge=1, le=200)]
"""How many rows a list tool shows."""

READ_ANNOTATIONS: Final = Annotations(
    read_only=True, destructive=False, idempotent=True, open_world=True
)
LOCAL_READ_ANNOTATIONS: Final = Annotations(
    read_only=True, destructive=False, idempotent=True, open_world=False
)
WRITE_ANNOTATIONS: Final = Annotations(
    read_only=False, destructive=False, idempotent=False, open_world=True
)
DELETE_ANNOTATIONS: Final = Annotations(
    read_only=False, destructive=True, idempotent=True, open_world=True
)
BINDING_ANNOTATIONS: Final = Annotations(
    read_only=False, destructive=True, idempotent=False, open_world=True
)
"""A step that binds the books (finalize, book, cancel, send): not undone by calling again."""


def stripped(value: str | None, name: str) -> str | None:
    """:returns: a one-line ``value`` without surrounding spaces and without the ``⟦ ⟧`` fence a
        model may copy from an earlier result; ``None`` stays ``None``.

    :raises ToolInputError: for a value that is only spaces or has a line break (names, numbers,
        subjects: a break would split a header line or hide text from the preview).
    """
    if value is None:
        return None
    value = unfenced(value)
    if not value.strip():
        raise ToolInputError(f"{name} is blank; give a value or leave it out.")
    if "\n" in value or "\r" in value:
        raise ToolInputError(f"{name} must be one line; remove the line break.")
    return value.strip()
