"""Human approval of a previewed write: MCP elicitation or the local approval page.

``SEVDESK_CONFIRM=elicit`` (the default):

The first call answers with a one-switch form ("Approve this action", off by default) whose
message is the rendered preview. Its sealed state (``requestState``, sealed by the protocol core
and bound there to the tool, the principal and the arguments) carries the tool name, a SHA-256 of
the arguments without ``dryRun``, a SHA-256 of the preview, a single-use nonce and a call id.
On the retry: other arguments or another tool are refused, the nonce is consumed once (a replay
is refused), ``prepare`` has run again and a changed preview asks again, saying so; decline,
cancel or an unchecked switch mean "declined". 2025-era clients get the same through the core's
legacy shim, which turns the form into a real ``elicitation/create``.

``SEVDESK_CONFIRM=browser``: the first call creates an approval in the safety runtime (bound to
the tool, the argument hash, the principal and the preview hash), starts the local page server
on first use, writes the page link to stderr (never into the result) and opens it when
``SEVDESK_CONFIRM_OPEN`` is on; the tool answers ``approval_pending`` with the reference code.
The retry (same tool, same arguments) runs ``prepare`` again and finds the approval: approved
with an unchanged preview is used up and the write runs; declined is ``declined``; still pending
answers ``approval_pending`` again; a changed preview voids it and asks anew, saying so; an
expired one is gone, so the human is asked anew.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from typing import Final

import msgspec

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.mcp.types import ElicitForm, InputRequired
from sevdesk_mcp.safety.approvals import Approval, Binding
from sevdesk_mcp.safety.preview import Preview, digest, render
from sevdesk_mcp.tools.define import ToolContext

APPROVE_KEY: Final = "approve"
CHANGED_NOTE: Final = "The record changed since you were asked. Please review it again.\n\n"
PAGE_CHANGED: Final = (
    "The record changed since the user was asked, so the earlier approval request is void. "
)
ASK_OPENED: Final = (
    "Ask the user to approve on the page that opened in their browser (reference {ref}); then "
    "call the tool again with the same arguments."
)
ASK_IN_LOG: Final = (
    "Ask the user to open the approval page whose link the server wrote to its log (stderr), "
    "check that it shows reference {ref} and approve; then call the tool again with the same "
    "arguments."
)
STILL_WAITING: Final = (
    "The approval (reference {ref}) still waits for the user. Ask them to approve or decline "
    "it on the page; then call the tool again with the same arguments."
)
APPROVAL_SCHEMA: Final[dict[str, JsonValue]] = {
    "type": "object",
    "properties": {
        APPROVE_KEY: {"type": "boolean", "title": "Approve this action", "default": False}
    },
    "required": [APPROVE_KEY],
}

Declined = bool  # ``True`` stands for "the human declined"
log = logging.getLogger("sevdesk_mcp.approvals")


class ApprovalInfo(msgspec.Struct, frozen=True, kw_only=True):
    """What the model learns about a pending browser approval (never the page link)."""

    reference: str
    expires_at: str
    opened: bool


@dataclass(frozen=True, slots=True)
class Pending:
    """A browser approval waits for the human."""

    approval: ApprovalInfo
    note: str


async def confirm(
    ctx: ToolContext, tool: str, arguments: str, preview: Preview
) -> InputRequired | Pending | Declined | None:
    """Obtain the human's approval.

    :returns: ``None`` when approved, an input request to send, a pending browser approval, or
        ``True`` when declined.
    :raises ToolError: for a foreign, replayed or expired approval, a client that cannot ask, or
        (browser mode) five waiting approvals or a page server that cannot start.
    """
    if ctx.account.config.confirm == "browser":
        return in_browser(ctx, tool, arguments, preview)
    state = ctx.request.request_state
    if not isinstance(state, dict) or state.get("kind") != "approval":
        return _ask(ctx, tool, arguments, preview, changed=False)
    if state.get("tool") != tool or state.get("arguments") != arguments:
        raise ToolError(
            "This approval was given for another action or other arguments; "
            "call the tool again to ask anew."
        )
    if not ctx.safety.nonces.consume(state.get("nonce")):
        raise ToolError(
            "This approval was already used or has expired; call the tool again "
            "to ask anew. Nothing was changed."
        )
    if state.get("preview") != digest(preview):
        return _ask(ctx, tool, arguments, preview, changed=True)
    answer = (ctx.request.input_responses or {}).get(APPROVE_KEY)
    if answer is None:
        return _ask(ctx, tool, arguments, preview, changed=False)
    approved = answer.action == "accept" and answer.content.get(APPROVE_KEY) is True
    return None if approved else True


def _ask(
    ctx: ToolContext, tool: str, arguments: str, preview: Preview, *, changed: bool
) -> InputRequired:
    if not ctx.request.can_elicit_form():
        raise ToolError(
            f"{tool} needs a human's approval, but this client cannot show approval forms "
            "(MCP form elicitation). Use a client that supports elicitation, or set "
            "SEVDESK_CONFIRM=browser to approve on a local web page. Nothing was changed."
        )
    state: dict[str, JsonValue] = {
        "kind": "approval",
        "tool": tool,
        "arguments": arguments,
        "preview": digest(preview),
        "nonce": ctx.safety.nonces.issue(),
        "call": secrets.token_hex(8),
    }
    ctx.safety.audit.write(
        "asked",
        tool=tool,
        call=str(state["call"]),
        principal=ctx.account.principal,
        preview=str(state["preview"]),
    )
    message = (CHANGED_NOTE if changed else "") + render(preview)
    return InputRequired({APPROVE_KEY: ElicitForm(message, APPROVAL_SCHEMA)}, state)


def in_browser(
    ctx: ToolContext, tool: str, arguments: str, preview: Preview
) -> Pending | Declined | None:
    """The browser branch of :func:`confirm`.

    :returns: ``None`` when approved (the approval is used up), a pending approval, or ``True``
        when declined.
    :raises ToolError: for five waiting approvals or a page server that cannot start.
    """
    safety, principal = ctx.safety, ctx.account.principal
    pages = safety.approval_pages()
    outcome = safety.approvals.settle(Binding(tool, arguments, principal), preview)
    approval = outcome.approval
    if outcome.kind == "approved":
        safety.audit.write("approved", tool=tool, principal=principal, reference=approval.reference)
        return None
    if outcome.kind == "declined":
        return True
    link = pages.link(approval.id)
    if outcome.kind == "pending":
        log.warning("Approval %s still waits: %s", approval.reference, link)
        return _pending(approval, opened=False, note=STILL_WAITING)
    safety.audit.write(
        "asked",
        tool=tool,
        principal=principal,
        preview=approval.preview_hash,
        reference=approval.reference,
    )
    log.warning("Approve or decline %s on %s", approval.reference, link)
    opened = ctx.account.config.confirm_open and safety.opener(link)
    note = ASK_OPENED if opened else ASK_IN_LOG
    return _pending(approval, opened=opened, note=(PAGE_CHANGED if approval.changed else "") + note)


def _pending(approval: Approval, *, opened: bool, note: str) -> Pending:
    info = ApprovalInfo(reference=approval.reference, expires_at=approval.expires_at, opened=opened)
    return Pending(info, note.format(ref=approval.reference))
