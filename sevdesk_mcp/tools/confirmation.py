"""Human approval of a previewed write through MCP elicitation (``SEVDESK_CONFIRM=elicit``).

The first call answers with a one-switch form ("Approve this action", off by default) whose
message is the rendered preview. Its sealed state (``requestState``, sealed by the protocol core
and bound there to the tool, the principal and the arguments) carries the tool name, a SHA-256 of
the arguments without ``dryRun``, a SHA-256 of the preview, a single-use nonce and a call id.
On the retry: other arguments or another tool are refused, the nonce is consumed once (a replay
is refused), ``prepare`` has run again and a changed preview asks again, saying so; decline,
cancel or an unchecked switch mean "declined". 2025-era clients get the same through the core's
legacy shim, which turns the form into a real ``elicitation/create``.
"""

from __future__ import annotations

import secrets
from typing import Final

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.mcp.types import ElicitForm, InputRequired
from sevdesk_mcp.safety.preview import Preview, digest, render
from sevdesk_mcp.tools.define import ToolContext

APPROVE_KEY: Final = "approve"
CHANGED_NOTE: Final = "The record changed since you were asked. Please review it again.\n\n"
APPROVAL_SCHEMA: Final[dict[str, JsonValue]] = {
    "type": "object",
    "properties": {
        APPROVE_KEY: {"type": "boolean", "title": "Approve this action", "default": False}
    },
    "required": [APPROVE_KEY],
}

Declined = bool  # ``True`` stands for "the human declined"


async def confirm(
    ctx: ToolContext, tool: str, arguments: str, preview: Preview
) -> InputRequired | Declined | None:
    """Obtain the human's approval.

    :returns: ``None`` when approved, an input request to send, or ``True`` when declined.
    :raises ToolError: for a foreign, replayed or expired approval, or a client that cannot ask.
    """
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
            "(MCP form elicitation). Use a client that supports elicitation; browser approval "
            "(SEVDESK_CONFIRM=browser) is not available in this version. Nothing was changed."
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
