"""Human approval of a previewed write: MCP elicitation or the local approval page.

``SEVDESK_CONFIRM=elicit`` (the default):

The first call answers with a one-switch form ("Approve this action", off by default) whose
message is the rendered preview. Its sealed state (``requestState``, sealed by the protocol core
and bound there to the tool, the principal and the arguments) is an :class:`ApprovalState`: the
tool name, a SHA-256 of the arguments without ``dryRun``, the basis of the write (the preview and
the digests of every record ``prepare`` read, :mod:`sevdesk_mcp.safety.basis`), a single-use
nonce and the call id every audit line of the action carries. On the retry: other arguments or
another tool are refused, the nonce is consumed once (a replay is refused), ``prepare`` has run
again under the record locks and a different basis asks again, naming what changed; decline,
cancel or an unchecked switch mean "declined". 2025-era clients get the same through the core's
legacy shim, which turns the form into a real ``elicitation/create``: over stdio, and over HTTP
in a 2025-era session (``SEVDESK_HTTP_SESSIONS=on``, the default), where it travels on the
POST's event stream and the answer comes back in another POST of the session. Without a session
(sessions off, or a client that sends no ``Mcp-Session-Id``) the tool says why it cannot ask.

``SEVDESK_CONFIRM=browser``: the first call creates an approval in the safety runtime (bound to
the tool, the argument hash, the principal and the basis), starts the local page server
on first use, writes the page link to stderr (never into the result) and opens it when
``SEVDESK_CONFIRM_OPEN`` is on; the tool answers ``approval_pending`` with the reference code.
Over HTTP the approval waits in the inbox (``<public URL>/approvals``) instead, of the person
who asked only (the binding carries the fingerprint of their sevDesk token and their client's
name, :func:`~sevdesk_mcp.safety.approvals.binding_of`): the result names the inbox address,
never a link to the approval itself.
The retry (same tool, same arguments) runs ``prepare`` again and finds the approval: approved
with an unchanged basis is used up and the write runs; declined is ``declined``; still pending
answers ``approval_pending`` again; a changed basis voids it and asks anew, naming what changed;
an expired one is gone, so the human is asked anew.

Either way the decision is one of :class:`Approved`, :class:`Declined`, :class:`Pending` or an
:class:`~sevdesk_mcp.mcp.types.InputRequired` to send, matched exhaustively by the write flow.
"""

from __future__ import annotations

import logging
import secrets
from typing import Final

import msgspec

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.mcp.types import ElicitForm, InputRequired
from sevdesk_mcp.safety.approvals import Approval, binding_of
from sevdesk_mcp.safety.basis import Basis, changes
from sevdesk_mcp.safety.locale import Lang
from sevdesk_mcp.safety.preview import Preview, Said, Words, render, say
from sevdesk_mcp.tools.define import ToolContext

APPROVE_KEY: Final = "approve"
CHANGED_NOTE: Final = (
    "The records changed since you were asked ({0}). Please review the action again.",
    "Die Datensätze haben sich geändert, seit Sie gefragt wurden ({0}). Bitte prüfen Sie die "
    "Aktion noch einmal.",
)
APPROVE_TITLE: Final = Said("Approve this action", "Diese Aktion freigeben")
PAGE_CHANGED: Final = (
    "The records changed since the user was asked ({what}), so the earlier approval request "
    "is void. "
)
ASK_OPENED: Final = (
    "Ask the user to approve on the page that opened in their browser (reference {ref}); then "
    "call the tool again with the same arguments."
)
ASK_IN_LOG: Final = (
    "No browser page opened. The link to the approval page is for the user alone, so it is "
    "not in this answer: this server wrote it to its log. Tell the user where that log is: in "
    "Claude Desktop, the folder ~/Library/Logs/Claude/ on macOS or %APPDATA%\\Claude\\logs\\ on "
    "Windows, file mcp-server-<the name this server has in the client's configuration>.log "
    "(the newest line with reference {ref}); in other clients, their MCP server log. Ask them "
    "to open the link, check that the page shows reference {ref} and approve; then call the "
    "tool again with the same arguments."
)
ASK_INBOX: Final = (
    "Ask the user to open their approval inbox at {inbox} (signed in with their sevDesk "
    "account), check that it shows reference {ref} and approve or decline there; then call the "
    "tool again with the same arguments."
)
STILL_WAITING: Final = (
    "The approval (reference {ref}) still waits for the user. Ask them to approve or decline "
    "it on the page; then call the tool again with the same arguments."
)
UNREACHABLE: Final = (
    "{tool} needs a human's approval, and this server cannot ask for it on this request: over "
    "HTTP it serves this client of protocol {version} (the 2025 era) without a session, so it "
    "has no way to send it a question, whatever the client supports. Either the operator turned "
    "sessions off (SEVDESK_HTTP_SESSIONS=off), or the client sent no Mcp-Session-Id (or takes no "
    "event stream). Ways that work: turn sessions on (SEVDESK_HTTP_SESSIONS=on, the default) and "
    "use a client that keeps its session, connect with a client that speaks protocol 2026-07-28 "
    "(the approval travels inside the request), run the server over stdio on the user's "
    "machine, or, when this HTTP server runs on the user's own machine, set "
    "SEVDESK_CONFIRM=browser to approve on a local web page. Nothing was changed."
)
log = logging.getLogger("sevdesk_mcp.approvals")


class ApprovalInfo(msgspec.Struct, frozen=True, kw_only=True):
    """What the model learns about a pending browser approval (never the page link)."""

    reference: str
    expires_at: str
    opened: bool


class ApprovalState(msgspec.Struct, frozen=True, kw_only=True, tag="approval", tag_field="kind"):
    """The sealed state of an approval form (``requestState``), decoded once."""

    tool: str
    arguments: str
    basis: Basis
    nonce: str
    call: str


class Approved(msgspec.Struct, frozen=True):
    """The human approved exactly this basis; ``call`` ties the audit lines together."""

    call: str


class Declined(msgspec.Struct, frozen=True):
    """The human declined (or cancelled, or left the switch off)."""

    call: str


class Pending(msgspec.Struct, frozen=True):
    """A browser approval waits for the human."""

    approval: ApprovalInfo
    note: str


Decision = Approved | Declined | Pending | InputRequired


async def confirm(
    ctx: ToolContext, tool: str, arguments: str, preview: Preview, basis: Basis
) -> Decision:
    """Obtain the human's approval of ``preview`` on ``basis``.

    :returns: the decision: approved, declined, a pending browser approval, or an input
        request to send.
    :raises ToolError: for a foreign, replayed or expired approval, a client that cannot ask, or
        (browser mode) five waiting approvals or a page server that cannot start.
    """
    if ctx.account.config.confirm == "browser":
        return await in_browser(ctx, tool, arguments, preview, basis)
    state = _state(ctx.request.request_state)
    if state is None:
        return await _ask(ctx, tool, arguments, preview, basis)
    if state.tool != tool or state.arguments != arguments:
        raise ToolError(
            "This approval was given for another action or other arguments; "
            "call the tool again to ask anew."
        )
    if not await ctx.safety.nonces.consume(state.nonce):
        raise ToolError(
            "This approval was already used or has expired; call the tool again "
            "to ask anew. Nothing was changed."
        )
    changed = changes(state.basis, basis)
    if changed:
        return await _ask(ctx, tool, arguments, preview, basis, call=state.call, changed=changed)
    answer = (ctx.request.input_responses or {}).get(APPROVE_KEY)
    if answer is None:
        return await _ask(ctx, tool, arguments, preview, basis, call=state.call)
    approved = answer.action == "accept" and answer.content.get(APPROVE_KEY) is True
    return _decided(ctx, tool, state.call, approved=approved)


def _state(raw: JsonValue) -> ApprovalState | None:
    # The core opened and authenticated the state; anything else of ours is asked anew.
    try:
        return msgspec.convert(raw, ApprovalState) if raw is not None else None
    except msgspec.ValidationError:
        return None


def _decided(
    ctx: ToolContext, tool: str, call: str, *, approved: bool, **extra: str
) -> Approved | Declined:
    event = "approved" if approved else "declined"
    ctx.safety.audit.write(event, tool=tool, call=call, principal=ctx.account.principal, **extra)
    return Approved(call) if approved else Declined(call)


async def _ask(  # noqa: PLR0913 - the call id and the changes carry over from the earlier request
    ctx: ToolContext,
    tool: str,
    arguments: str,
    preview: Preview,
    basis: Basis,
    *,
    call: str | None = None,
    changed: list[str] | None = None,
) -> InputRequired:
    _require_a_way_to_ask(ctx, tool)
    state = ApprovalState(
        tool=tool,
        arguments=arguments,
        basis=basis,
        nonce=await ctx.safety.nonces.issue(),
        call=call or secrets.token_hex(8),
    )
    ctx.safety.audit.write(
        "asked",
        tool=tool,
        call=state.call,
        principal=ctx.account.principal,
        preview=basis.digest,
    )
    form = approval_form(preview, ctx.account.config.language, changed)
    return InputRequired({APPROVE_KEY: form}, msgspec.to_builtins(state))


def approval_form(preview: Preview, lang: Lang, changed: list[str] | None = None) -> ElicitForm:
    """:returns: the one-switch form asking a person in ``lang``: what changed since they were
    asked (when something did), then the preview as a person reads it."""
    words = Words(lang)
    note = f"{words.text(say(*CHANGED_NOTE, ', '.join(changed)))}\n\n" if changed else ""
    return ElicitForm(note + render(preview, lang, "person"), approval_schema(lang))


def approval_schema(lang: Lang) -> dict[str, JsonValue]:
    """:returns: the form's schema: one switch, off by default, titled in ``lang``."""
    switch: dict[str, JsonValue] = {
        "type": "boolean",
        "title": Words(lang).text(APPROVE_TITLE),
        "default": False,
    }
    return {"type": "object", "properties": {APPROVE_KEY: switch}, "required": [APPROVE_KEY]}


def _require_a_way_to_ask(ctx: ToolContext, tool: str) -> None:
    """:raises ToolError: if this request cannot carry a question to the human, naming why."""
    request = ctx.request
    if request.era == "legacy" and not request.peer.can_request:
        raise ToolError(UNREACHABLE.format(tool=tool, version=request.protocol_version))
    if not request.can_elicit_form():
        raise ToolError(
            f"{tool} needs a human's approval, but this client cannot show approval forms "
            "(MCP form elicitation). Use a client that supports elicitation, or set "
            "SEVDESK_CONFIRM=browser to approve on a local web page. Nothing was changed."
        )


async def in_browser(
    ctx: ToolContext, tool: str, arguments: str, preview: Preview, basis: Basis
) -> Approved | Declined | Pending:
    """The browser branch of :func:`confirm`.

    :returns: the decision (an approval is used up when it is returned).
    :raises ToolError: for five waiting approvals or a page server that cannot start.
    """
    safety, principal = ctx.safety, ctx.account.principal
    pages = safety.approval_pages()
    binding = binding_of(tool, arguments, principal, ctx.account.account or "")
    outcome = await safety.approvals.settle(binding, preview, basis)
    approval = outcome.approval
    if outcome.kind in ("approved", "declined"):
        approved = outcome.kind == "approved"
        return _decided(ctx, tool, approval.call, approved=approved, reference=approval.reference)
    if pages.inbox is not None:  # HTTP: the asker's inbox; no page link exists
        return _in_inbox(ctx, tool, outcome.kind, approval, pages.inbox)
    link = pages.link(approval.id)
    if outcome.kind == "pending":
        log.warning("Approval %s still waits: %s", approval.reference, link)
        return _pending(approval, opened=False, note=STILL_WAITING)
    safety.audit.write(
        "asked",
        tool=tool,
        call=approval.call,
        principal=principal,
        preview=approval.basis.digest,
        reference=approval.reference,
    )
    log.warning("Approve or decline %s on %s", approval.reference, link)
    opened = ctx.account.config.confirm_open and safety.opener(link)
    note = ASK_OPENED if opened else ASK_IN_LOG
    if approval.changed:
        note = PAGE_CHANGED.format(what=", ".join(approval.changed)) + note
    return _pending(approval, opened=opened, note=note)


def _in_inbox(ctx: ToolContext, tool: str, kind: str, approval: Approval, inbox: str) -> Pending:
    if kind in {"new", "changed"}:
        ctx.safety.audit.write(
            "asked",
            tool=tool,
            call=approval.call,
            principal=ctx.account.principal,
            preview=approval.basis.digest,
            reference=approval.reference,
        )
    note = ASK_INBOX.replace("{inbox}", inbox)
    if kind == "pending":
        note = STILL_WAITING.replace("on the page", f"in their approval inbox at {inbox}")
    elif approval.changed:
        note = PAGE_CHANGED.format(what=", ".join(approval.changed)) + note
    return _pending(approval, opened=False, note=note)


def _pending(approval: Approval, *, opened: bool, note: str) -> Pending:
    info = ApprovalInfo(reference=approval.reference, expires_at=approval.expires_at, opened=opened)
    return Pending(info, note.replace("{ref}", approval.reference))
