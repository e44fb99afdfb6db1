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

:class:`ApprovalStore` is the seam, and :class:`Approvals` its one implementation: it takes
every decision from :mod:`sevdesk_mcp.safety.approval_table` and leaves storing and fetching,
atomically, to an :class:`ApprovalBackend`: :class:`MemoryApprovals` keeps the approvals of one
process (:class:`MemoryApprovalStore`, the default), :mod:`sevdesk_mcp.safety.approvals_redis`
shares them between instances. A backend changes what it stores only if it is still what it
read (compare-and-set); :meth:`Approvals.settle` reads again when it is not. The tool-call
side (:meth:`ApprovalStore.settle`) and the page side (:meth:`ApprovalStore.view`,
:meth:`ApprovalStore.decide`) may run on different threads (the local page has a thread of its
own), so every method of the memory backend holds its lock, and :class:`MemoryApprovalStore`
offers the page's thread synchronous :meth:`MemoryApprovalStore.view_now` and
:meth:`MemoryApprovalStore.decide_now`.
"""

from __future__ import annotations

import datetime as dt
import secrets
import threading
import time
from collections.abc import Callable, Collection, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Final, Literal, NamedTuple, Protocol

import msgspec

from sevdesk_mcp.errors import StateUnavailableError, ToolError
from sevdesk_mcp.safety.approval_table import (
    Settle,
    Status,
    decidable,
    decide,
    has_room,
    live,
    settle,
    shown,
)
from sevdesk_mcp.safety.basis import Basis, basis_of, changes
from sevdesk_mcp.safety.preview import Preview

APPROVAL_TTL_S: Final = 600.0
MAX_PENDING: Final = 5
ID_BYTES: Final = 32  # 256 bits
TOKEN_BYTES: Final = 32
REFERENCE_ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L
REFERENCE_CHARS: Final = 5
ATTEMPTS: Final = 8
BUSY: Final = (
    "Other calls for this approval are being settled at the same moment; call the tool again "
    "in a moment. Nothing was changed."
)

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


class Slot(NamedTuple):
    """An approval as a backend fetched it, and what the backend compares against when it
    changes it (its ``token``: opaque to :class:`Approvals`).

    :ivar approval: the live approval (its status as stored), or ``None``: none, expired, or
        failing its check.
    """

    approval: Approval | None
    token: object = None


class ApprovalBackend(Protocol):
    """Where approvals are stored; it decides nothing (:mod:`~sevdesk_mcp.safety.approval_table`
    does) and changes what it stores only if it is still what it fetched.

    Every method may raise :class:`~sevdesk_mcp.errors.StateUnavailableError`.
    """

    async def current(self, binding: Binding) -> Slot:
        """:returns: the live approval for ``binding``."""
        ...

    async def put(self, slot: Slot, new: Approval, cap: int) -> Approval | None:
        """Replace the approval of ``slot`` (if any) by ``new``, if ``slot`` is still what the
        binding points at and fewer than ``cap`` of the holder wait.

        :returns: the stored approval, or ``None`` if the binding changed meanwhile.
        :raises TooManyApprovalsError: if ``cap`` of the holder already wait (the replaced
            approval is gone all the same).
        """
        ...

    async def take(self, slot: Slot) -> Status | None:
        """Use up the decided approval of ``slot``, once.

        :returns: how it was decided, or ``None`` if it changed meanwhile (or still waits).
        """
        ...

    async def read(self, approval_id: str) -> Slot:
        """:returns: the live approval ``approval_id``."""
        ...

    async def mark(self, slot: Slot, status: Status) -> bool:
        """Record ``status`` on the approval of ``slot`` if its stored status may still be
        decided (:func:`~sevdesk_mcp.safety.approval_table.decidable`).

        :returns: whether it was recorded.
        """
        ...

    async def holding(self, holder: str) -> list[Approval]:
        """:returns: the live approvals waiting for ``holder`` (:attr:`Binding.holder`)."""
        ...


class Approvals:
    """The one :class:`ApprovalStore`: the rules of
    :mod:`~sevdesk_mcp.safety.approval_table` over a backend.

    :param clock: seconds since the epoch, by which new approvals' times are set.
    """

    def __init__(
        self,
        backend: ApprovalBackend,
        clock: Callable[[], float] = time.time,
        *,
        ttl_s: float = APPROVAL_TTL_S,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self._backend = backend
        self._clock = clock
        self._ttl_s = ttl_s
        self._max_pending = max_pending

    async def settle(
        self, binding: Binding, preview: Preview, basis: Basis | None = None
    ) -> Outcome:
        """See :meth:`ApprovalStore.settle`.

        :raises TooManyApprovalsError: if five of the binding's person (or account) already
            wait.
        :raises StateUnavailableError: if the shared state cannot be reached, or the binding
            stays contended.
        """
        bound = basis if basis is not None else basis_of(preview, {})
        for _ in range(ATTEMPTS):
            slot = await self._backend.current(binding)
            outcome = await self._settle_once(slot, binding, preview, bound)
            if outcome is not None:
                return outcome
        raise StateUnavailableError(BUSY)

    async def view(self, approval_id: str, person: str) -> Approval | None:
        """See :meth:`ApprovalStore.view`."""
        return visible((await self._backend.read(approval_id)).approval, person)

    async def decide(self, approval_id: str, person: str, *, approved: bool) -> Approval | None:
        """See :meth:`ApprovalStore.decide` (``person`` is checked against the stored
        approval, which names who asked)."""
        slot = await self._backend.read(approval_id)
        decided = decision(visible(slot.approval, person), approved=approved)
        ok = decided is not None and await self._backend.mark(slot, decided.status)
        return decided if ok else None

    async def waiting(self, person: str) -> list[Approval]:
        """See :meth:`ApprovalStore.waiting`."""
        found = await self._backend.holding(f"person:{person}") if person else []
        mine = (a for a in found if visible(a, person) is not None)
        return sorted(mine, key=lambda a: a.expires)

    async def _settle_once(
        self, slot: Slot, binding: Binding, preview: Preview, bound: Basis
    ) -> Outcome | None:
        """:returns: the outcome by :data:`~sevdesk_mcp.safety.approval_table.SETTLE`, or
        ``None`` if the backend found the binding changed since ``slot`` (read again)."""
        current = slot.approval
        same = current is not None and current.basis.digest == bound.digest
        step = settle(current.status if current is not None else None, same)
        if current is not None and step is Settle.KEEP:
            return Outcome("pending", current)
        if current is not None and step is Settle.USE:
            status = await self._backend.take(slot)
            return None if status is None else Outcome(status, replace(current, status=status))
        now = self._clock()
        replaces = current if step is Settle.CHANGED else None
        new = new_approval(
            binding, preview, bound, expires=now + self._ttl_s, replaces=replaces, asked=now
        )
        stored = await self._backend.put(slot, new, self._max_pending)
        kind: OutcomeKind = "changed" if replaces is not None else "new"
        return None if stored is None else Outcome(kind, stored)


def visible(approval: Approval | None, person: str | None) -> Approval | None:
    """:returns: ``approval`` if it is shown (it waits) to ``person`` (``None``: to whoever
    holds the local page's link), else ``None``."""
    if approval is None or not shown(approval.status):
        return None
    return approval if person is None or owned_by(approval, person) else None


def decision(approval: Approval | None, *, approved: bool) -> Approval | None:
    """:returns: ``approval`` as the decision leaves it
    (:data:`~sevdesk_mcp.safety.approval_table.DECIDE`), or ``None`` where it is refused."""
    status = decide(approval.status, approved=approved) if approval is not None else None
    return replace(approval, status=status) if approval is not None and status else None


class MemoryApprovals:
    """The approvals of one process (:class:`ApprovalBackend`); every method holds its lock,
    so what it compares and what it changes are one step.

    :param clock: seconds since the epoch, by which expiry is judged.
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._items: dict[str, Approval] = {}

    async def current(self, binding: Binding) -> Slot:
        """See :meth:`ApprovalBackend.current`."""
        with self._lock:
            return Slot(self._bound(binding))

    async def put(self, slot: Slot, new: Approval, cap: int) -> Approval | None:
        """See :meth:`ApprovalBackend.put`.

        :raises TooManyApprovalsError: if ``cap`` of the holder already wait.
        """
        with self._lock:
            if self._bound(new.binding) is not slot.approval:
                return None
            if slot.approval is not None:
                del self._items[slot.approval.id]
            waiting = self._holding(new.binding.holder)
            if not has_room(len(waiting), cap):
                raise too_many(cap, [a.reference for a in waiting])
            taken = {a.reference for a in self._items.values()}
            if new.reference in taken:
                new = replace(new, reference=new_reference(taken))
            self._items[new.id] = new
            return new

    async def take(self, slot: Slot) -> Status | None:
        """See :meth:`ApprovalBackend.take`."""
        with self._lock:
            if slot.approval is None or not self._unchanged(slot.approval):
                return None
            del self._items[slot.approval.id]
            return slot.approval.status

    async def read(self, approval_id: str) -> Slot:
        """See :meth:`ApprovalBackend.read`."""
        return self.read_now(approval_id)

    async def mark(self, slot: Slot, status: Status) -> bool:
        """See :meth:`ApprovalBackend.mark`."""
        return self.mark_now(slot, status)

    async def holding(self, holder: str) -> list[Approval]:
        """See :meth:`ApprovalBackend.holding`."""
        with self._lock:
            return self._holding(holder)

    def read_now(self, approval_id: str) -> Slot:
        """:meth:`read` for a caller without an event loop of this store (the page's thread)."""
        with self._lock:
            self._prune()
            return Slot(self._items.get(approval_id))

    def mark_now(self, slot: Slot, status: Status) -> bool:
        """:meth:`mark` for a caller without an event loop of this store."""
        with self._lock:
            self._prune()
            found = self._items.get(slot.approval.id) if slot.approval is not None else None
            if found is None or found.status not in decidable():
                return False
            self._items[found.id] = replace(found, status=status)
            return True

    def _bound(self, binding: Binding) -> Approval | None:
        self._prune()
        return next((a for a in self._items.values() if a.binding == binding), None)

    def _unchanged(self, approval: Approval) -> bool:
        self._prune()
        return self._items.get(approval.id) is approval

    def _holding(self, holder: str) -> list[Approval]:
        self._prune()
        mine = (a for a in self._items.values() if a.binding.holder == holder)
        return sorted((a for a in mine if shown(a.status)), key=lambda a: a.expires)

    def _prune(self) -> None:
        now = self._clock()
        for approval_id in [k for k, a in self._items.items() if not live(a.expires, now)]:
            del self._items[approval_id]


class MemoryApprovalStore(Approvals):
    """The approvals of one process (:class:`ApprovalStore`), with the local page's
    synchronous :meth:`view_now` and :meth:`decide_now`.

    :param clock: seconds since the epoch (injectable for tests).
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.time,
        *,
        ttl_s: float = APPROVAL_TTL_S,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self._memory = MemoryApprovals(clock)
        super().__init__(self._memory, clock, ttl_s=ttl_s, max_pending=max_pending)

    def view_now(self, approval_id: str) -> Approval | None:
        """The local page's :meth:`view`, for a caller without an event loop of this store
        (the page's thread): the page link is the capability, whoever holds it.

        :returns: the approval if it exists, is unexpired and still waits.
        """
        return visible(self._memory.read_now(approval_id).approval, None)

    def decide_now(self, approval_id: str, *, approved: bool) -> Approval | None:
        """The local page's :meth:`decide` (see :meth:`view_now`).

        :returns: the decided approval, or ``None`` if it is unknown, expired or decided.
        """
        slot = self._memory.read_now(approval_id)
        decided = decision(visible(slot.approval, None), approved=approved)
        ok = decided is not None and self._memory.mark_now(slot, decided.status)
        return decided if ok else None


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
