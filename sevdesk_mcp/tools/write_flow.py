"""The write flow: prepare, preview, approve, execute, audit (seed ADR 0003).

A write tool is split into ``prepare`` (reads through a client that refuses every write, checks
preconditions, builds a :class:`Preview` and a plan) and ``execute`` (makes exactly the planned
writes through a client stamped with the tool's tier). Every call:

1. refuses arguments with characters a human would not see (control, format, default-ignorable,
   CR, U+2028/2029, tabs) before ``prepare``;
2. takes the locks of the records the tool names for its arguments (``locks``: the document,
   the bank transaction, the number range), one account at a time (:mod:`sevdesk_mcp.safety.locks`),
   and holds them through ``execute`` and its read-back; a dry run takes none. Locks that name an
   earlier attempt whose outcome is unknown (shared locks: its instance died while sending) put
   a warning first in the preview naming ``outcome_unknown`` and that call, so the human checks
   the record in sevDesk before approving; a tool that asks nobody refuses once instead, with
   the same text (nothing sent), and the next call proceeds;
3. runs ``prepare`` on a read-only client whose witness records every answer read; a dry run
   (``SEVDESK_DRY_RUN=1`` or ``dryRun``) stops here, never asking;
4. for ``commit`` and ``external`` tools, obtains the human's approval of the basis: that
   preview and every record behind it (``confirmation.py``: an elicitation form, or the local
   approval page, whose first call ends as ``approval_pending``). The approved retry has just
   prepared again under the locks, so what executes is what the human saw; a ``confirm``
   argument is never a gate;
5. checks that the locks are still held and marks the records as being sent to by this call
   (shared locks are leases; a holder that lost one is refused and audited ``refused``, nothing
   sent), then writes the audit line ``executing`` (if it cannot, nothing is sent), with the call
   id of the approval, so ``asked``, ``approved``, ``executing`` and ``done`` of one action share
   it;
6. runs ``execute``; a failure names the writes that already happened; once the outcome is
   known the mark goes with the locks (an unknown outcome keeps it for the next attempt). A stop
   forced at the end of the shutdown grace ends the call as ``outcome_unknown``, and the call
   answers its client so before the connection closes.

Results are ``{status: done|dry_run|approval_pending|declined, result?, preview?, approval?}``;
``approval`` (``{reference, expires_at, opened}``) only while a browser approval waits.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Final, Generic, Literal, TypeVar, assert_never

import anyio
import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import (
    OutcomeUnknownError,
    RateLimitedError,
    RejectedError,
    SafetyError,
    StateUnavailableError,
    ToolDefinitionError,
    ToolError,
    ToolInputError,
    UnavailableError,
    UpstreamError,
    WriteRefusedError,
)
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.mcp.shutdown import bounded_by_shutdown, stop_forced
from sevdesk_mcp.mcp.types import InputRequired
from sevdesk_mcp.safety.audit import AuditError, AuditLog
from sevdesk_mcp.safety.basis import basis_of
from sevdesk_mcp.safety.fence import hidden_characters
from sevdesk_mcp.safety.files import FileAccess
from sevdesk_mcp.safety.locks import Earlier, Held
from sevdesk_mcp.safety.preview import Moment, Plain, Preview, Said, Words, say
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.confirmation import (
    ApprovalInfo,
    Approved,
    Declined,
    Pending,
    confirm,
)
from sevdesk_mcp.tools.define import Annotations, ToolContext, ToolDef, define_tool
from sevdesk_mcp.tools.rehearsal_marks import marked_preview
from sevdesk_mcp.tools.remedies import message

log = logging.getLogger("sevdesk_mcp")
EXECUTE_LIMIT_S: Final = 120.0
# Errors of ``execute`` whose outcome is known: sevDesk refused, could not be reached, or the
# write was refused before sending. Any other (a garbled answer after a 2xx, an internal error
# after a request went out) may follow an applied write: audited as ``outcome_unknown``, and
# the records keep their mark, so the next write on them warns (issue 35, finding 7).
KNOWN_OUTCOME: Final = (RejectedError, UnavailableError, RateLimitedError, SafetyError, ToolError)
EARLIER: Final = (
    "outcome_unknown: an earlier attempt on these records never reported its outcome (call "
    "{0}, {1}, sending to sevDesk since {2}; its server stopped or lost the answer while "
    "sending). It may have been applied. Check the record in sevDesk before approving again.",
    "Ergebnis unbekannt: Ein früherer Versuch an diesen Datensätzen hat sein Ergebnis nie "
    "gemeldet (Aufruf {0}, {1}, sendet seit {2} an sevDesk; sein Server hielt an oder verlor "
    "die Antwort beim Senden). Er kann ausgeführt worden sein. Prüfen Sie den Datensatz in "
    "sevDesk, bevor Sie erneut freigeben.",
)
ASKS_NOBODY: Final = (
    " Nothing was sent now. Once you have checked, call the tool again (you are not told twice)."
)
BINDING_NOBODY: Final = (
    " Nothing was sent now. A binding action on these records is refused while that outcome is "
    "unknown and no person confirms (SEVDESK_CONFIRM=off): check the record in sevDesk, then "
    "ask the operator to turn confirmation on (SEVDESK_CONFIRM=elicitation or browser), so a "
    "person approves it with this warning in front of them; otherwise the mark ends a day "
    "after the earlier attempt."
)
STOPPED: Final = (
    "outcome_unknown: the server was stopped while {tool} (call {call}) was being sent to "
    "sevDesk; it may have been applied. "
)
TOO_LONG: Final = "outcome_unknown: {tool} (call {call}) did not finish within {limit:g} s. "
I = TypeVar("I", bound=msgspec.Struct)  # noqa: E741
O = TypeVar("O", bound=msgspec.Struct)  # noqa: E741
P = TypeVar("P")


def shown_preview(preview: Preview) -> JsonObject:
    """:returns: ``preview`` as JSON data (every piece with its ``type``, words in both
    languages): what a result carries, so that a client or a test renders it as
    :func:`sevdesk_mcp.safety.preview.render` does."""
    data = msgspec.to_builtins(preview)
    assert isinstance(data, dict)  # a Struct becomes an object
    return data


class WriteResult(msgspec.Struct, Generic[O], frozen=True, kw_only=True):
    """The outcome of a write tool call; ``preview`` is the preview's data
    (:func:`shown_preview`)."""

    status: Literal["done", "dry_run", "approval_pending", "declined"]
    result: O | None = None
    preview: dict[str, Any] | None = None
    approval: ApprovalInfo | None = None
    note: str | None = None


Prepare = Callable[[I, SevdeskPort], Awaitable[Prepared[P]]]


class PrepareContext(msgspec.Struct, frozen=True):
    """What a ``prepare`` may use besides sevDesk: the books' today (``AccountContext.today``:
    the demo books have their own), for defaults such as a draft's date, and the call's file
    access (``ToolContext.files``)."""

    today: dt.date
    files: FileAccess


class WithContext(msgspec.Struct, Generic[I, P], frozen=True):
    """A ``prepare`` that also takes the call's :class:`PrepareContext`.

    :param reads_files: it reads local files through ``files`` (the tool then declares
        ``local_files="read"``; the preview states what was read).
    """

    prepare: Callable[[I, SevdeskPort, PrepareContext], Awaitable[Prepared[P]]]
    reads_files: bool = False


AnyPrepare = Prepare[I, P] | WithContext[I, P]

Execute = Callable[[I, P, SevdeskPort, Progress], Awaitable[O]]
Locks = Callable[[I], Iterable[str]]


def plan_only(
    run: Callable[[SevdeskPort, P, Progress], Awaitable[O]],
) -> Execute[msgspec.Struct, P, O]:
    """:returns: an ``execute`` for a domain function that needs only the plan (the arguments
    were turned into the plan by ``prepare``)."""

    async def execute(args: msgspec.Struct, plan: P, client: SevdeskPort, progress: Progress) -> O:
        return await run(client, plan, progress)

    return execute


def define_write_tool(  # noqa: PLR0913 - every part of a tool is stated at its definition
    *,
    name: str,
    title: str,
    description: str,
    toolset: str,
    tier: Tier,
    annotations: Annotations,
    input: type[I],
    output: type[O],
    prepare: AnyPrepare[I, P],
    execute: Execute[I, P, O],
    locks: Locks[I],
) -> ToolDef[I, WriteResult[O]]:
    """Declare a write tool; its input must have ``dryRun: bool = False``.

    ``locks`` names, for the arguments of a call, every record the write depends on or creates
    a number in (``invoice/42``, ``transaction/7``, ``numbers/contact``): no other write of the
    account touches them while this one re-checks and executes.
    ``prepare`` wrapped in :class:`WithContext` also gets the books' today and the call's file
    access.

    :raises ToolDefinitionError: for a read tier or an input without ``dryRun``.
    """
    if tier is Tier.READ:
        raise ToolDefinitionError(f"{name}: write tools need the write, commit or external tier")
    if "dryRun" not in {f.encode_name for f in msgspec.structs.fields(input)}:
        raise ToolDefinitionError(f"{name}: write tool inputs need a dryRun: bool = False field")

    flow = _Flow(name, tier, prepare, execute, locks)
    return define_tool(
        name=name,
        title=title,
        description=description,
        toolset=toolset,
        tier=tier,
        annotations=annotations,
        input=input,
        output=WriteResult[output],  # type: ignore[valid-type]
        handler=flow.run,
        local_files="read" if isinstance(prepare, WithContext) and prepare.reads_files else None,
    )


class _Flow(msgspec.Struct, Generic[I, P, O], frozen=True):
    name: str
    tier: Tier
    prepare: AnyPrepare[I, P]
    execute: Execute[I, P, O]
    locks: Locks[I]

    async def run(self, args: I, ctx: ToolContext) -> WriteResult[O] | InputRequired:
        refuse_hidden_characters(args)
        account = ctx.account
        if getattr(args, "dryRun", False) or account.config.dry_run:
            prepared = await self._prepare(args, account.reader(), ctx)
            return WriteResult(
                status="dry_run",
                preview=shown_preview(prepared.preview),
                note="Dry run: nothing was sent to sevDesk and nobody was asked.",
            )
        async with ctx.safety.locks.hold(account.lock_scope, self.locks(args)) as held:
            return await self._locked(args, ctx, held)

    async def _prepare(self, args: I, reader: SevdeskPort, ctx: ToolContext) -> Prepared[P]:
        """:returns: what ``prepare`` read; in a rehearsal its preview says so first, so the
        approval question, the approval page and the result all show it."""
        if isinstance(self.prepare, WithContext):
            context = PrepareContext(today=ctx.account.today(), files=ctx.files)
            prepared = await self.prepare.prepare(args, reader, context)
        else:
            prepared = await self.prepare(args, reader)
        if ctx.account.rehearsal is None:
            return prepared
        return msgspec.structs.replace(prepared, preview=marked_preview(prepared.preview))

    async def _locked(
        self, args: I, ctx: ToolContext, held: Held
    ) -> WriteResult[O] | InputRequired:
        reader = ctx.account.reader(witnessed=True)
        prepared = await self._prepare(args, reader, ctx)
        arguments = _arguments_digest(args)
        witness = reader.witness
        asks = self.tier >= Tier.COMMIT and ctx.account.config.confirm != "off"
        prepared = _warned(prepared, held, asks=asks, binding=self.tier >= Tier.COMMIT)
        basis = basis_of(prepared.preview, witness.records() if witness is not None else {})
        if not asks:
            call = secrets.token_hex(8)
            return await self._execute(
                args, ctx, prepared, (arguments, basis.digest), call, held=held
            )
        decision = await confirm(ctx, self.name, arguments, prepared.preview, basis)
        if isinstance(decision, Approved):
            return await self._execute(
                args, ctx, prepared, (arguments, basis.digest), decision.call, held=held
            )
        if isinstance(decision, Declined):
            return WriteResult(
                status="declined",
                preview=shown_preview(prepared.preview),
                note="The human declined; nothing was changed.",
            )
        if isinstance(decision, Pending):
            return WriteResult(
                status="approval_pending",
                preview=shown_preview(prepared.preview),
                approval=decision.approval,
                note=decision.note,
            )
        if isinstance(decision, InputRequired):
            return decision
        assert_never(decision)

    async def _execute(  # noqa: PLR0913 - the call, its approval and its locks
        self,
        args: I,
        ctx: ToolContext,
        prepared: Prepared[P],
        bound: tuple[str, str],
        call: str,
        *,
        held: Held,
    ) -> WriteResult[O]:
        """:param bound: the argument digest and the basis digest (the same ``preview`` field
        the ``asked`` line carries), for the audit.
        :param held: the locks; checked right before anything is sent.
        :raises WriteRefusedError: if a lock was lost (audited ``refused``, nothing sent).
        :raises StateUnavailableError: if shared locks cannot be checked (likewise)."""
        account, audit_log = ctx.account, ctx.safety.audit
        arguments, basis = bound
        audit: dict[str, JsonValue] = {
            "tool": self.name,
            "call": call,
            "principal": account.principal,
            "arguments": arguments,
            "preview": basis,
        }
        try:
            await held.begin(call, self.name)
        except (WriteRefusedError, StateUnavailableError) as exc:
            _audit_quietly(audit_log, "refused", audit, Progress(), error=type(exc).__name__)
            raise
        try:
            audit_log.write("executing", **audit)
        except AuditError as exc:
            held.settle()  # nothing was sent: the marks just set must not warn the next call
            raise ToolError(f"{exc} Nothing was sent to sevDesk.") from None
        writer = account.writer(self.tier)
        progress = Progress()
        # Once the first write may be on the wire, the call runs to its end even if the client
        # goes away or cancels: a half-made write must be reported, never silently abandoned.
        # Only the server's forced stop (end of its shutdown grace) ends it early, as unknown.
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(EXECUTE_LIMIT_S) as limit,
            bounded_by_shutdown(limit),
        ):
            try:
                result = await self.execute(args, prepared.plan, writer, progress)
            except Exception as exc:
                known = isinstance(exc, KNOWN_OUTCOME)  # anything else may follow a sent write
                event = "failed" if known else "outcome_unknown"
                if known:
                    held.settle()
                _audit_quietly(audit_log, event, audit, progress, error=type(exc).__name__)
                raise _with_progress(exc, progress) from exc
        if limit.cancelled_caught:
            _audit_quietly(audit_log, "outcome_unknown", audit, progress)
            said = STOPPED if stop_forced() else TOO_LONG
            raise OutcomeUnknownError(
                said.format(tool=self.name, call=call, limit=EXECUTE_LIMIT_S)
                + _progress_text(progress)
                + "Check the records in sevDesk before trying again."
            )
        held.settle()
        _audit_quietly(audit_log, "done", audit, progress)
        return WriteResult(status="done", result=result, preview=shown_preview(prepared.preview))


def _warned(prepared: Prepared[P], held: Held, *, asks: bool, binding: bool) -> Prepared[P]:
    """:returns: ``prepared``, its preview warning first of the earlier attempts on the records
    whose outcome is unknown (the human approving sees it, and it is part of the basis).

    :raises ToolError: if there are such attempts and nobody is asked, nothing sent: a change
        (``binding`` false) is told once, the locks' marks then cleared; a binding action is
        refused as long as the marks last, since a model that merely calls again is no person
        who checked.
    """
    if not held.earlier:
        return prepared
    said = [_earlier_said(earlier) for earlier in held.earlier]
    told = " ".join(_for_model(s) for s in said)
    if not asks and binding:
        raise ToolError(told + BINDING_NOBODY)
    if not asks:
        held.acknowledge()
        raise ToolError(told + ASKS_NOBODY)
    preview = prepared.preview
    warned = msgspec.structs.replace(preview, warnings=[*said, *preview.warnings])
    return msgspec.structs.replace(prepared, preview=warned)


def _earlier_said(earlier: Earlier) -> Said:
    """:returns: the warning about ``earlier`` in both languages."""
    return say(*EARLIER, earlier.call, earlier.tool, _since(earlier.since))


def _since(since: str) -> Moment | Plain:
    """:returns: when the earlier attempt started sending, as a moment (its text if it is no
    ISO 8601 time with a zone)."""
    try:
        moment = dt.datetime.fromisoformat(since)
    except ValueError:
        return Plain(since)
    return Moment(moment) if moment.tzinfo is not None else Plain(since)


def _for_model(said: Said) -> str:
    """:returns: ``said`` as the model reads it (English, machine forms)."""
    return Words("en", "model").text(said)


def _audit_quietly(
    audit_log: AuditLog,
    event: str,
    audit: dict[str, JsonValue],
    progress: Progress,
    **extra: JsonValue,
) -> None:
    # After execute started, a failing audit line must not hide what happened in sevDesk.
    try:
        audit_log.write(event, **audit, completed=list(progress.completed), **extra)
    except AuditError as exc:
        log.error("audit line %r not written after the write: %s", event, exc)


def _progress_text(progress: Progress) -> str:
    if not progress.completed:
        return ""
    return f"Already changed before the failure: {'; '.join(progress.completed)}. "


def _with_progress(exc: Exception, progress: Progress) -> Exception:
    if not progress.completed:
        return exc
    said = (
        message(exc)
        if isinstance(exc, UpstreamError | SafetyError | ToolError)
        else ("An internal error stopped the action.")
    )
    kind = OutcomeUnknownError if isinstance(exc, OutcomeUnknownError) else ToolError
    return kind(f"{said} {_progress_text(progress).strip()}")


def refuse_hidden_characters(args: msgspec.Struct, where: str = "") -> None:
    """:raises ToolInputError: naming the argument and the invisible characters it holds."""
    for name, value in msgspec.structs.asdict(args).items():
        texts = value if isinstance(value, list) else [value]
        for index, text in enumerate(texts):
            if isinstance(text, msgspec.Struct):  # a row of a list argument (positions)
                refuse_hidden_characters(text, f"{where}{name}[{index}].")
                continue
            found = hidden_characters(text) if isinstance(text, str) else []
            if found:
                raise ToolInputError(
                    f"The argument '{where}{name}' contains characters a human would not see "
                    f"({', '.join(found[:5])}). Remove them and call again; what reaches "
                    "sevDesk must be what the human approved."
                )


def _arguments_digest(args: msgspec.Struct) -> str:
    data = {k: v for k, v in msgspec.to_builtins(args).items() if k != "dryRun"}
    return hashlib.sha256(msgspec.json.encode(data, order="sorted")).hexdigest()
