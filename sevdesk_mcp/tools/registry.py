"""The tool registry: selects the tools of a configuration and wraps every call.

Every call, whatever the tool: the tier is checked again against the configuration, the
arguments are validated (unknown names refused by name; missing ``arguments`` count as ``{}``),
the handler runs, its output is checked against the output Struct, and failures become
``isError`` results with trusted, actionable text. ``structuredContent`` and ``outputSchema``
appear only for 2026-07-28 requests or with ``SEVDESK_STRUCTURED_OUTPUT=on`` (never with
``off``), and then hold the complete output, never an empty object. An optional field whose
value is ``None`` is left out of the output (text and structured alike), as its schema says.
The text content is the output written for the model (``outputs.result_text``): amounts as
``714.00 EUR``, shortened by the tool's brief.
"""

from __future__ import annotations

import functools
import logging
import re
import secrets
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import Config
from sevdesk_mcp.domain.port import observed
from sevdesk_mcp.errors import (
    INVALID_PARAMS,
    ProtocolError,
    SafetyError,
    TierDeniedError,
    ToolDefinitionError,
    ToolError,
    ToolInputError,
    UpstreamError,
)
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.types import (
    MODERN_VERSION,
    InputRequired,
    JsonObject,
    JsonValue,
    ToolResult,
)
from sevdesk_mcp.safety.runtime import SafetyRuntime
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.tools.define import FileNeed, FileReach, ToolContext, ToolDef
from sevdesk_mcp.tools.lazy import LazyTool
from sevdesk_mcp.tools.outputs import omit_nulls, result_text
from sevdesk_mcp.tools.progress import CallObserver
from sevdesk_mcp.tools.rehearsal_marks import (
    NOT_REHEARSING,
    REHEARSAL_TOOLSET,
    marked_result,
    toolset_offered,
)
from sevdesk_mcp.tools.remedies import message
from sevdesk_mcp.tools.schema import DECIMAL_PATTERN, in_words

log = logging.getLogger("sevdesk_mcp")
_DECIMAL = re.compile(DECIMAL_PATTERN)
_EXACT_DIGITS: Final = 15  # a float's shortest repr gives back up to 15 written digits

AnyTool = ToolDef[Any, Any] | LazyTool


def select_tools(
    catalog: Sequence[AnyTool],
    config: Config,
    toolsets: frozenset[str],
    reach: FileReach = "local",
) -> tuple[AnyTool, ...]:
    """:returns: the tools of ``toolsets`` whose tier the configuration allows and whose file
    need the deployment's ``reach`` serves, in catalog order. The one place that decides what
    is offered: a tool not selected is neither listed nor callable (unknown tool)."""
    return tuple(
        t
        for t in catalog
        if toolset_offered(config, toolsets, t.toolset)
        and config.allows(t.tier)
        and served(t.needs_files, reach)
    )


def not_offered(
    catalog: Sequence[AnyTool],
    config: Config,
    toolsets: frozenset[str],
    reach: FileReach = "local",
) -> dict[str, str]:
    """:returns: for each tool of ``catalog`` that :func:`select_tools` leaves out, why, in the
    words a refusal uses (a model that calls one anyway learns what would turn it on)."""
    why: dict[str, str] = {}
    for t in catalog:
        if not config.allows(t.tier):
            why[t.name] = (
                f"its tier {t.tier} is off (the user turns it on with SEVDESK_ALLOW, or the "
                "Claude Desktop extension's checkboxes; SEVDESK_READ_ONLY keeps it off)"
            )
        elif t.toolset == REHEARSAL_TOOLSET and not toolset_offered(config, toolsets, t.toolset):
            why[t.name] = NOT_REHEARSING
        elif not toolset_offered(config, toolsets, t.toolset):
            why[t.name] = f"its toolset {t.toolset} is not selected (SEVDESK_TOOLSETS)"
        elif not served(t.needs_files, reach):
            why[t.name] = "it needs files, which this deployment cannot reach"
    return why


def served(need: FileNeed | None, reach: FileReach) -> bool:
    """:returns: whether a deployment with file ``reach`` can serve a tool's file ``need``:
    file transfer only over HTTP with it on; a file at all anywhere but HTTP without it."""
    if need is None:
        return True
    if need == "transfer":
        return reach == "transfer"
    return reach != "none"


def structured_for(config: Config, ctx: RequestContext) -> bool:
    """:returns: whether results and tool lists carry structured output for this request."""
    if config.structured_output == "auto":
        return ctx.era == "modern" and ctx.protocol_version == MODERN_VERSION
    return config.structured_output == "on"


class Registry:
    """The tools of one account context; implements the core's ``ToolProvider``."""

    def __init__(
        self,
        tools: Sequence[AnyTool],
        account: AccountContext,
        safety: SafetyRuntime,
        hidden: Mapping[str, str] | None = None,
    ) -> None:
        """:param hidden: the tools not offered and why (:func:`not_offered`), for the refusal
        of a call to one."""
        self._tools = {t.name: t for t in tools}
        self._hidden = dict(hidden or {})
        self._account = account
        self._safety = safety
        self._names = tuple(self._tools)

    def list_tools(self, ctx: RequestContext) -> list[JsonObject]:
        """:returns: the ``Tool`` objects in registration order; output schemas only with
        ``SEVDESK_OUTPUT_SCHEMAS`` on and structured output for this request (results carry
        ``structuredContent`` either way: a schema is optional, and it is bytes in every
        conversation for clients that never check it; ADR 0007)."""
        config = self._account.config
        schemas = config.output_schemas and structured_for(config, ctx)
        return [t.to_json(structured=schemas) for t in self._tools.values()]

    async def call_tool(
        self, name: str, arguments: JsonObject, ctx: RequestContext
    ) -> ToolResult | InputRequired:
        """Run one tool call through the wrapper; in a rehearsal every result says so first
        (``rehearsal_marks``).

        :raises ProtocolError: -32602 if no tool of that name is registered.
        """
        result = await self._result(name, arguments, ctx)
        if self._account.rehearsal is None or isinstance(result, InputRequired):
            return result
        tool = self._tools[name]
        return marked_result(result, write=tool.tier is not Tier.READ)

    async def _result(
        self, name: str, arguments: JsonObject, ctx: RequestContext
    ) -> ToolResult | InputRequired:
        """:raises ProtocolError: -32602 if no tool of that name is registered."""
        tool = self._tools.get(name)
        if tool is None:
            why = self._hidden.get(name)
            said = f"; {name} is not offered here: {why}. Nothing was done" if why else ""
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name[:100]}{said}")
        try:
            definition = self._admitted(tool)
        except TierDeniedError as exc:
            return ToolResult.error(message(exc))
        except ToolDefinitionError as exc:  # nothing of the tool ran
            log.error("tool %s refused: %s", name, exc, exc_info=exc.__cause__ is not None)
            return ToolResult.error(str(exc))
        try:
            return await self._call(definition, arguments, ctx)
        except (ToolError, UpstreamError, SafetyError) as exc:
            return ToolResult.error(message(exc))
        except Exception:
            ref = secrets.token_hex(4)
            log.exception("tool %s failed unexpectedly (reference %s)", name, ref)
            return ToolResult.error(
                f"Internal error in {name} (reference {ref}). Nothing more is known about the "
                "outcome; the server log has the details."
            )

    def _admitted(self, tool: AnyTool) -> ToolDef[Any, Any]:
        """:returns: the definition of ``tool`` if its tier is enabled (checked before its code
        is imported).

        :raises TierDeniedError: if the tool's tier is not enabled.
        :raises ToolDefinitionError: if the tool's index entry and code disagree.
        """
        if not self._account.config.allows(tool.tier):
            raise TierDeniedError(
                f"{tool.name} needs the {tool.tier} tier, which is not enabled. Set "
                f"SEVDESK_ALLOW to include {tool.tier} (and unset SEVDESK_READ_ONLY) to use it."
            )
        return tool.resolve() if isinstance(tool, LazyTool) else tool

    async def _call(
        self, tool: ToolDef[Any, Any], arguments: JsonObject, ctx: RequestContext
    ) -> ToolResult | InputRequired:
        config = self._account.config
        parsed = parse_arguments(tool, arguments)
        tool_ctx = ToolContext(
            account=_stamped(self._account, tool.tier),
            request=ctx,
            registered=self._names,
            safety=self._safety,
        )
        with observed(CallObserver(ctx, tool.name, config.language)):
            output = await tool.handler(parsed, tool_ctx)
        if isinstance(output, InputRequired):
            return output
        data = check_output(tool, output)
        brief = functools.partial(tool.brief, parsed) if tool.brief else None
        text = result_text(data, brief)
        structured = data if structured_for(config, ctx) else None
        content: list[JsonObject] = [{"type": "text", "text": text}]
        content += tool.links(output) if tool.links else []
        return ToolResult(content=content, structured=structured)


_STAMPED_ACCOUNTS: Final = 64  # account contexts whose stamped views are kept
_stamped_views: dict[int, tuple[AccountContext, dict[Tier, AccountContext]]] = {}


def _stamped(account: AccountContext, tier: Tier) -> AccountContext:
    """:returns: the account with a client that stamps ``tier`` on every request, so a read
    tool's domain code cannot declare a higher tier for itself (the write flow restamps).

    A view shares everything of its client but the gate, the stamp and the witness, none of
    which changes after it is made, so one view per account context and tier serves every
    call (making it costs a ``msgspec.structs.replace`` and a ``copy``: 10 µs a call). The cache
    holds the account it was made for, so an ``id`` reused by another account never matches,
    and is emptied when it holds :data:`_STAMPED_ACCOUNTS` accounts (OAuth mode has one per
    account).
    """
    if account.client is None:
        return account
    entry = _stamped_views.get(id(account))
    if entry is None or entry[0] is not account:
        if len(_stamped_views) >= _STAMPED_ACCOUNTS:
            _stamped_views.clear()
        entry = _stamped_views[id(account)] = (account, {})
    views = entry[1]
    view = views.get(tier)
    if view is None:
        view = views[tier] = msgspec.structs.replace(
            account, client=account.client.view(gate=account.client.gate, stamp=tier)
        )
    return view


def parse_arguments(tool: ToolDef[Any, Any], arguments: JsonObject) -> msgspec.Struct:
    """:returns: the arguments as the tool's input Struct.

    :raises ToolInputError: naming unknown arguments, or the field that does not fit.
    """
    if not arguments:  # the common call without arguments: nothing to screen or clean
        return _converted(tool, {})
    properties = tool.input_schema["properties"]
    assert isinstance(properties, dict)  # built by input_schema
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        accepted = ", ".join(properties) or "no arguments"
        raise ToolInputError(
            f"Unknown argument(s) for {tool.name}: {', '.join(u[:60] for u in unknown[:10])}. "
            f"It accepts: {accepted}."
        )
    listed = tool.input_schema.get("required")
    required = {r for r in listed if isinstance(r, str)} if isinstance(listed, list) else set()
    cleaned = {
        k: v
        for k, v in arguments.items()
        if not (k not in required and v in (None, "", "null"))  # clients send "null" (7.14)
    }
    return _converted(tool, _decimal_strings(tool, cleaned))


def _converted(tool: ToolDef[Any, Any], cleaned: JsonObject) -> msgspec.Struct:
    """:returns: the cleaned arguments as the tool's input Struct.

    :raises ToolInputError: naming the field that does not fit.
    """
    try:
        parsed: msgspec.Struct = msgspec.convert(cleaned, tool.input_type)
    except msgspec.ValidationError as exc:
        raise ToolInputError(
            f"Invalid arguments for {tool.name}: {in_words(str(exc))}{_meaning(tool, exc)}"
        ) from None
    return parsed


_FIELD_AT: Final = re.compile(r"at `\$\.([A-Za-z_][A-Za-z0-9_]*)")


def _meaning(tool: AnyTool, exc: msgspec.ValidationError) -> str:
    """:returns: what the refused argument means, from its description ("contact_id is the
    contact's sevDesk id (not the customer number)"), so a value of the wrong kind is easy to
    correct; empty when the error names no argument of the tool."""
    match = _FIELD_AT.search(str(exc))
    properties = tool.input_schema["properties"]
    field = properties.get(match.group(1)) if match and isinstance(properties, dict) else None
    description = field.get("description") if isinstance(field, dict) else None
    if not isinstance(description, str) or match is None:
        return ""
    return f". {match.group(1)} is: {description[:200]}"


def _decimal_strings(
    tool: AnyTool, arguments: JsonObject, schema: JsonObject | None = None, where: str = ""
) -> JsonObject:
    """:returns: ``arguments`` with every decimal field as a decimal string: ``"7"``, ``7``
    and ``7.0`` alike (a JSON number by the shortest form of its float, ``1190.5``).

    :raises ToolInputError: naming the field whose string is no plain decimal, or whose number
        has more than 15 significant digits or an exponent (then its float is not the decimal
        that was written, as 0.1 + 0.2 is 0.30000000000000004).
    """
    properties = (schema or tool.input_schema)["properties"]
    assert isinstance(properties, dict)  # built by input_schema
    out: JsonObject = {}
    for name, value in arguments.items():
        field = properties.get(name)
        out[name] = value
        if not isinstance(field, dict):
            continue
        items = field.get("items")
        if isinstance(items, dict) and "properties" in items and isinstance(value, list):
            out[name] = [  # rows of a list argument (positions)
                _decimal_strings(tool, row, items, f"{where}{name}[{index}].")
                if isinstance(row, dict)
                else row
                for index, row in enumerate(value)
            ]
        elif field.get("pattern") == DECIMAL_PATTERN:
            out[name] = _decimal_string(tool, value, f"{where}{name}")
    return out


def _decimal_string(tool: AnyTool, value: JsonValue, name: str) -> JsonValue:
    """:returns: ``value`` as a decimal string if it is a JSON number, else as it came.

    :raises ToolInputError: for a string that is no plain decimal or a number that is no exact
        decimal of at most 15 significant digits.
    """
    if isinstance(value, bool):
        return value  # refused by the conversion, with the field's meaning
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        shown = repr(value)
        digits = shown.lstrip("-").replace(".", "").lstrip("0")
        if not _DECIMAL.match(shown) or len(digits.rstrip("0") or "0") > _EXACT_DIGITS:
            raise ToolInputError(
                f"Invalid arguments for {tool.name}: {name} is the JSON number {shown}, which "
                f"is no exact decimal of at most {_EXACT_DIGITS} significant digits (a sum "
                'computed in binary?). Send the amount as a string, such as "1234.50".'
            )
        return shown
    if isinstance(value, str) and not _DECIMAL.match(value):
        raise ToolInputError(
            f"Invalid arguments for {tool.name}: {name} must be a decimal number "
            "such as 1234.50 (a dot, no thousands separators, no exponent)."
        )
    return value


def check_output(tool: ToolDef[Any, Any], output: object) -> JsonObject:
    """:returns: the output as JSON data, after checking it against the output Struct, without
    the optional fields that are ``None`` (the output schema has no ``null``).

    :raises TypeError: if the handler returned something else (a bug, reported as internal).
    """
    if not isinstance(output, typing.get_origin(tool.output_type) or tool.output_type):
        raise TypeError(f"{tool.name} returned {type(output).__name__}")
    data = msgspec.to_builtins(output)
    msgspec.convert(data, tool.output_type)  # enforces the Meta constraints of the output
    assert isinstance(data, dict)  # a Struct encodes as an object
    omit_nulls(data, tool.built.omission)
    return data
