"""Approvals for the local approval page (``SEVDESK_CONFIRM=browser``).

An approval binds the tool, the SHA-256 of its arguments (without ``dryRun``), the principal
and the basis of the write (:mod:`sevdesk_mcp.safety.basis`: the complete preview the human sees
and every record ``prepare`` read). It has a 256-bit random id (the secret part of the page
link, never shown to the model), a short non-secret reference code shown to the model and on the
page, a call id shared by every audit line of the action, a CSRF token and a cookie value; it
expires after 10 minutes and is used once.

An approval belongs to the person who asked (issue 35): over HTTP in OAuth mode the binding
holds, besides the grant's principal, the keyed fingerprint of the sevDesk token that made the
call (``person``, :mod:`sevdesk_mcp.http.web.persons`) and the name of the grant's client; the
inbox shows, and :meth:`ApprovalStore.view` and :meth:`ApprovalStore.decide` serve, an approval
only to a browser session signed in with that same token. At most :data:`MAX_PENDING` wait per
person (over stdio and in bearer mode, where no person is known, per account: the one of the
process). The tool call learns who asks from :data:`ASKER`, which the HTTP layer sets.

:class:`ApprovalStore` is the seam: :class:`MemoryApprovalStore` keeps the approvals of one
process (the default), :mod:`sevdesk_mcp.safety.approvals_redis` shares them between instances.
The tool-call side (:meth:`ApprovalStore.settle`) and the page side (:meth:`ApprovalStore.view`,
:meth:`ApprovalStore.decide`) may run on different threads (the local page has a thread of its
own), so every method of the memory store holds its lock, and it offers the page's thread
synchronous :meth:`MemoryApprovalStore.view_now` and :meth:`MemoryApprovalStore.decide_now`.
"""

from __future__ import annotations

import datetime as dt
import secrets
import threading
import time
from collections.abc import Callable, Collection, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Final, Literal, Protocol

import msgspec

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.basis import Basis, basis_of, changes
from sevdesk_mcp.safety.preview import Preview

APPROVAL_TTL_S: Final = 600.0
MAX_PENDING: Final = 5
ID_BYTES: Final = 32  # 256 bits
TOKEN_BYTES: Final = 32
REFERENCE_ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L
REFERENCE_CHARS: Final = 5

Status = Literal["pending", "approved", "declined"]
OutcomeKind = Literal["new", "changed", "pending", "approved", "declined"]


class TooManyApprovalsError(ToolError):
    """Five approvals of the person (or the account) already wait for the human."""


class Binding(msgspec.Struct, frozen=True):
    """What an approval is for: the tool, its argument hash and who asked.

    :param account: the sevDesk account the approval belongs to; empty where one account
        serves the process (stdio, bearer mode).
    :param person: the keyed fingerprint of the sevDesk token that asked (OAuth mode): the
        one person whose inbox shows the approval and who may decide it; empty over stdio and
        in bearer mode (one principal per process).
    :param client: the name of the grant's client (shown in the inbox), empty without one.
    """

    tool: str
    arguments: str
    principal: str
    account: str = ""
    person: str = ""
    client: str = ""

    @property
    def holder(self) -> str:
        """:returns: whose cap the approval counts against: the person, or else the account."""
        return f"person:{self.person}" if self.person else f"account:{self.account}"


class Asker(msgspec.Struct, frozen=True):
    """Who asks for an approval over HTTP in OAuth mode.

    :param person: the keyed fingerprint of the sevDesk token of the call (never the token).
    :param client: the name of the grant's client.
    """

    person: str
    client: str


ASKER: ContextVar[Callable[[], Asker | None] | None] = ContextVar(
    "sevdesk_approval_asker", default=None
)
"""Who the current tool call asks for, looked up when an approval is made (the HTTP layer
sets it per request; over stdio and in bearer mode it is unset)."""


def binding_of(tool: str, arguments: str, principal: str, account: str) -> Binding:
    """:returns: the binding of an approval asked now: with the asker of :data:`ASKER`, if
    the HTTP layer set one."""
    lookup = ASKER.get()
    asker = lookup() if lookup is not None else None
    if asker is None:
        return Binding(tool, arguments, principal, account)
    return Binding(tool, arguments, principal, account, asker.person, asker.client)


def owned_by(approval: Approval, person: str) -> bool:
    """:returns: whether ``approval`` was asked by ``person`` (never for an empty one)."""
    return bool(person) and approval.binding.person == person


@dataclass(frozen=True, slots=True)
class Approval:
    """One approval; a snapshot (the store holds the current state)."""

    id: str = field(repr=False)  # secret: it is in the page's link
    reference: str
    binding: Binding
    preview: Preview
    basis: Basis
    call: str
    expires: float  # seconds since the epoch
    csrf: str = field(repr=False)
    cookie: str = field(repr=False)
    changed: tuple[str, ...] = ()  # what differed from the request this one replaced
    status: Status = "pending"
    asked: float = 0.0  # when it was asked, seconds since the epoch

    @property
    def expires_at(self) -> str:
        """:returns: the expiry as ISO 8601 in UTC, to the second."""
        return dt.datetime.fromtimestamp(self.expires, dt.UTC).isoformat(timespec="seconds")


class Outcome(msgspec.Struct, frozen=True):
    """What a tool call finds: a new or renewed approval, or the state of the earlier one."""

    kind: OutcomeKind
    approval: Approval


class ApprovalStore(Protocol):
    """Where approvals wait for the human: this process's memory, or the shared state."""

    async def settle(
        self, binding: Binding, preview: Preview, basis: Basis | None = None
    ) -> Outcome:
        """Find the approval for ``binding`` and use it up, or create one.

        An approved or declined approval whose basis matches is consumed (single use, also
        when two calls retry at the same moment: one gets it, the other a new approval); a
        pending one is returned as it is; one for another basis (the preview or a record it
        was prepared from changed) is void and replaced, keeping its call id and naming what
        changed; without one (or after expiry) a new one is created.

        :param basis: what the approval binds; the preview alone when omitted.
        :raises TooManyApprovalsError: if a new approval is needed and five of the binding's
            person (or account, :attr:`Binding.holder`) already wait.
        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...

    async def view(self, approval_id: str, person: str) -> Approval | None:
        """:returns: the approval if it exists, is unexpired, still waits for a decision and
        was asked by ``person`` (an approval of anyone else is ``None``, as an unknown one).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...

    async def decide(self, approval_id: str, person: str, *, approved: bool) -> Approval | None:
        """Record the decision of ``person``, once, on an approval they asked for.

        :returns: the decided approval, or ``None`` if it is unknown, expired, decided or
            another person's.
        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...

    async def waiting(self, person: str) -> list[Approval]:
        """:returns: the unexpired approvals ``person`` asked for that wait for a decision
        (their inbox), oldest first.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...


class MemoryApprovalStore:
    """The approvals of one process (:class:`ApprovalStore`).

    :param clock: seconds since the epoch (injectable for tests).
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.time,
        *,
        ttl_s: float = APPROVAL_TTL_S,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self._clock = clock
        self._ttl_s = ttl_s
        self._max_pending = max_pending
        self._lock = threading.Lock()
        self._items: dict[str, Approval] = {}

    async def settle(
        self, binding: Binding, preview: Preview, basis: Basis | None = None
    ) -> Outcome:
        """See :meth:`ApprovalStore.settle`.

        :raises TooManyApprovalsError: if five of the binding's person (or account) already
            wait.
        """
        bound = basis if basis is not None else basis_of(preview, {})
        with self._lock:
            self._prune()
            current = next((a for a in self._items.values() if a.binding == binding), None)
            if current is None:
                return Outcome("new", self._create(binding, preview, bound))
            if current.basis.digest != bound.digest:
                del self._items[current.id]
                return Outcome("changed", self._create(binding, preview, bound, current))
            if current.status != "pending":
                del self._items[current.id]
            return Outcome(current.status, current)

    async def view(self, approval_id: str, person: str) -> Approval | None:
        """See :meth:`ApprovalStore.view`."""
        approval = self.view_now(approval_id)
        return approval if approval is not None and owned_by(approval, person) else None

    async def decide(self, approval_id: str, person: str, *, approved: bool) -> Approval | None:
        """See :meth:`ApprovalStore.decide`."""
        with self._lock:
            self._prune()
            approval = self._items.get(approval_id)
            if approval is None or not owned_by(approval, person):
                return None
            return self._decide(approval, approved=approved)

    async def waiting(self, person: str) -> list[Approval]:
        """See :meth:`ApprovalStore.waiting`."""
        with self._lock:
            self._prune()
            return self._waiting(f"person:{person}") if person else []

    def view_now(self, approval_id: str) -> Approval | None:
        """The local page's :meth:`view`, for a caller without an event loop of this store
        (the page's thread): the page link is the capability, whoever holds it.

        :returns: the approval if it exists, is unexpired and still waits.
        """
        with self._lock:
            self._prune()
            approval = self._items.get(approval_id)
            return approval if approval is not None and approval.status == "pending" else None

    def decide_now(self, approval_id: str, *, approved: bool) -> Approval | None:
        """The local page's :meth:`decide` (see :meth:`view_now`).

        :returns: the decided approval, or ``None`` if it is unknown, expired or decided.
        """
        with self._lock:
            self._prune()
            approval = self._items.get(approval_id)
            return self._decide(approval, approved=approved) if approval is not None else None

    def _decide(self, approval: Approval, *, approved: bool) -> Approval | None:
        if approval.status != "pending":
            return None
        decided = replace(approval, status="approved" if approved else "declined")
        self._items[approval.id] = decided
        return decided

    def _waiting(self, holder: str) -> list[Approval]:
        return sorted(
            (
                a
                for a in self._items.values()
                if a.status == "pending" and a.binding.holder == holder
            ),
            key=lambda a: a.expires,
        )

    def _prune(self) -> None:
        now = self._clock()
        for approval_id in [k for k, a in self._items.items() if a.expires <= now]:
            del self._items[approval_id]

    def _create(
        self, binding: Binding, preview: Preview, basis: Basis, replaces: Approval | None = None
    ) -> Approval:
        """:returns: a new approval, stored (for ``replaces``, see :func:`new_approval`).

        :raises TooManyApprovalsError: if ``max_pending`` of the binding's person (or
            account) already wait.
        """
        waiting = self._waiting(binding.holder)
        if len(waiting) >= self._max_pending:
            raise too_many(self._max_pending, [a.reference for a in waiting])
        now = self._clock()
        approval = new_approval(
            binding,
            preview,
            basis,
            expires=now + self._ttl_s,
            taken={a.reference for a in self._items.values()},
            replaces=replaces,
            asked=now,
        )
        self._items[approval.id] = approval
        return approval


def new_approval(  # noqa: PLR0913 - the parts of a new approval
    binding: Binding,
    preview: Preview,
    basis: Basis,
    *,
    expires: float,
    taken: Collection[str] = (),
    replaces: Approval | None = None,
    asked: float = 0.0,
) -> Approval:
    """:returns: a new pending approval with fresh secrets (id, CSRF token, cookie) and a
        reference code not one of ``taken``.

    :param replaces: the approval for another basis this one replaces: the new one keeps its
        call id and names what changed.
    :param asked: when it is asked (seconds since the epoch; shown in the inbox).
    """
    return Approval(
        id=secrets.token_urlsafe(ID_BYTES),
        reference=new_reference(taken),
        binding=binding,
        preview=preview,
        basis=basis,
        call=secrets.token_hex(8) if replaces is None else replaces.call,
        expires=expires,
        csrf=secrets.token_urlsafe(TOKEN_BYTES),
        cookie=secrets.token_urlsafe(TOKEN_BYTES),
        changed=() if replaces is None else tuple(changes(replaces.basis, basis)),
        asked=asked,
    )


def new_reference(taken: Collection[str] = ()) -> str:
    """:returns: a new reference code such as ``7K-M3QX``, not one of ``taken``."""
    while True:
        code = "".join(secrets.choice(REFERENCE_ALPHABET) for _ in range(REFERENCE_CHARS))
        reference = f"{code[:2]}-{code[2:]}"
        if reference not in taken:
            return reference


def too_many(limit: int, references: Iterable[str]) -> TooManyApprovalsError:
    """:returns: the error for a person (or account) whose ``limit`` approvals already wait
    (``references``: theirs only)."""
    return TooManyApprovalsError(
        f"{limit} approvals already wait for the human (references "
        f"{', '.join(references)}). Ask the user to approve or decline them on their pages, or "
        "wait until they expire (10 minutes), then call the tool again. Nothing was changed."
    )
