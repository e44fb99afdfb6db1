"""Reading one sevDesk object by id, and what to say when it is missing.

``GET /{Model}/{id}`` answers an array of one (Q2); an empty array or a 404 is a
:class:`~sevdesk_mcp.errors.NotFoundError`. A caller that knows what the record is for passes
:class:`Missing`, and a missing record becomes a :class:`PreconditionError` that names the
record, the argument at fault and where to find the right id.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.errors import NotFoundError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.envelope import one
from sevdesk_mcp.sevdesk.paths import MAX_ID, api_path

__all__ = ["MAX_ID", "Missing", "find_one", "read_one", "read_raw"]  # MAX_ID: for tool inputs

T = TypeVar("T", bound=msgspec.Struct)


class Missing(msgspec.Struct, frozen=True):
    """What a missing record means: ``There is no {what} {id}; {action}{then}``.

    :param what: the record in words, such as ``"check account"``.
    :param action: where the right id is found.
    :param then: the rest of the sentence after the action, such as ``" lists them."``.
    :param field: the argument that named the record.
    """

    what: str
    action: Action
    then: str
    field: str

    def error(self, ident: int) -> PreconditionError:
        """:returns: the error for the missing record ``ident``."""
        return PreconditionError(
            f"There is no {self.what} {ident}; ",
            self.action,
            self.then,
            record=f"{self.what} {ident}",
            field=self.field,
        )


async def read_raw(
    client: SevdeskPort, model: str, ident: int, *, missing: Missing | None = None
) -> dict[str, JsonValue]:
    """:returns: the object ``ident`` of ``model`` as sevDesk sent it.

    :raises PreconditionError: if it is missing and ``missing`` says what that means.
    :raises NotFoundError: if it is missing otherwise.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    try:
        return one(await client.get(api_path(model, ident)))
    except NotFoundError:
        if missing is None:
            raise
        raise missing.error(ident) from None


async def read_one(
    client: SevdeskPort, model: str, ident: int, into: type[T], *, missing: Missing | None = None
) -> T:
    """:returns: the object ``ident`` of ``model``, parsed into ``into``.

    :raises PreconditionError: if it is missing and ``missing`` says what that means.
    :raises NotFoundError: if it is missing otherwise.
    :raises MalformedResponseError: if it does not fit ``into``.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    return wire.parse(await read_raw(client, model, ident, missing=missing), into)


async def find_one(client: SevdeskPort, model: str, ident: int, into: type[T]) -> T | None:
    """:returns: the object ``ident`` of ``model`` parsed into ``into``, ``None`` if missing.

    :raises MalformedResponseError: if it does not fit ``into``.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    try:
        return await read_one(client, model, ident, into)
    except NotFoundError:
        return None
