"""The prompts of one account context: ``prompts/list``, ``prompts/get`` and
``completion/complete``. Rendering never calls sevDesk; completion reads it."""

from __future__ import annotations

from collections.abc import Sequence

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.errors import INVALID_PARAMS, ProtocolError
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.prompts.complete import suggest
from sevdesk_mcp.prompts.plan import Planned
from sevdesk_mcp.prompts.render import check_arguments, prompt_json, render


class SevdeskPrompts:
    """Implements the core's ``PromptProvider`` and ``CompletionProvider``."""

    def __init__(self, planned: Sequence[Planned], account: AccountContext) -> None:
        self._planned = {p.workflow.name: p for p in planned}
        self._listed = [prompt_json(p) for p in planned]
        self._account = account

    def list_prompts(self, ctx: RequestContext) -> Sequence[JsonObject]:
        """:returns: the prompts this configuration offers."""
        return self._listed

    async def get_prompt(
        self, name: str, arguments: dict[str, str], ctx: RequestContext
    ) -> JsonObject:
        """:returns: the rendered prompt.

        :raises ProtocolError: -32602 for an unknown prompt or a bad argument.
        """
        planned = self._planned.get(name)
        if planned is None:
            offered = ", ".join(self._planned) or "none"
            raise ProtocolError(
                INVALID_PARAMS, f"Unknown prompt {name[:60]!r}; offered here: {offered}"
            )
        return render(planned, check_arguments(planned.workflow, arguments))

    async def complete(
        self, ref: JsonObject, argument: JsonObject, ctx: RequestContext
    ) -> JsonObject:
        """:returns: ``{values, total?, hasMore?}``; no values for what is not completed."""
        is_prompt = ref.get("type") == "ref/prompt"
        planned = self._planned.get(str(ref.get("name"))) if is_prompt else None
        name, value = argument.get("name"), argument.get("value", "")
        if planned is None or not isinstance(value, str):
            return {"values": []}
        wanted = next((a for a in planned.workflow.arguments if a.name == name), None)
        if wanted is None or wanted.completion is None:
            return {"values": []}
        values = await suggest(self._account, wanted.completion, value)
        return {"values": list[JsonValue](values)}
