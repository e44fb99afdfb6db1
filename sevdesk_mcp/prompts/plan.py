"""Planning per configuration: which workflows are offered, which steps are shown, and the
"needs …" lines for the others, worded for the deployment (who can change which setting).

A workflow is offered when every tool it ``requires`` is registered. A step is shown when every
tool it names is registered; otherwise it becomes one "needs …" line that names the setting,
never a tool. A tool this server version does not have at all (the catalog lacks it) is named
by the step's feature instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import msgspec

from sevdesk_mcp.prompts.model import Step, Workflow
from sevdesk_mcp.safety.tiers import Tier

Deployment = Literal["stdio", "bearer", "oauth"]


class ToolInfo(msgspec.Struct, frozen=True):
    """What planning needs to know of a tool of the catalog."""

    name: str
    toolset: str
    tier: Tier


class Surface(msgspec.Struct, frozen=True):
    """One configuration: the catalog, what is registered, and who may change what.

    :param registered: the registered tool names, in ``tools/list`` order.
    :param toolsets: the toolsets enabled; :param tiers: the tiers enabled.
    """

    catalog: tuple[ToolInfo, ...]
    registered: tuple[str, ...]
    toolsets: frozenset[str]
    tiers: frozenset[Tier]
    read_only: bool
    deployment: Deployment


class Line(msgspec.Struct, frozen=True):
    """A planned line: a step with the tools it names, or a "needs …" line (no tools)."""

    text: str
    tools: tuple[str, ...] = ()
    needs: bool = False


class Planned(msgspec.Struct, frozen=True):
    """A workflow as this configuration offers it."""

    workflow: Workflow
    lines: tuple[Line, ...]

    @property
    def named(self) -> frozenset[str]:
        """:returns: every tool the rendered prompt names."""
        return frozenset(t for line in self.lines for t in line.tools)


def plan_prompts(workflows: Iterable[Workflow], surface: Surface) -> tuple[Planned, ...]:
    """:returns: the workflows ``surface`` offers, each with its planned lines."""
    registered = frozenset(surface.registered)
    return tuple(
        Planned(w, tuple(_line(step, surface) for step in w.steps))
        for w in workflows
        if registered.issuperset(w.requires)
    )


def _line(step: Step, surface: Surface) -> Line:
    tools = _step_tools(step, surface)
    registered = frozenset(surface.registered)
    shown = [t for t in tools if t.name in registered]
    if tools and len(shown) == len(tools):
        return Line(step.text, tuple(t.name for t in tools))
    return Line(_needs(step, tools, surface), needs=True)


def _step_tools(step: Step, surface: Surface) -> list[ToolInfo]:
    by_name = {t.name: t for t in surface.catalog}
    # a name the catalog lacks is planned as a tool of no toolset: never registered
    return [by_name.get(n, ToolInfo(n, "", Tier.READ)) for n in step.tools]


def _needs(step: Step, tools: Sequence[ToolInfo], surface: Surface) -> str:
    what = step.text.rstrip(".")
    missing = [t for t in tools if t.name not in surface.registered]
    if any(not t.toolset for t in missing):
        area = f"the {step.feature} tools" if step.feature else "tools"
        return f"({what}: needs {area}, which this server version does not include.)"
    off = sorted({t.toolset for t in missing if t.toolset not in surface.toolsets})
    if off:
        return f"({what}: needs {_toolset_fix(off, surface.deployment)}.)"
    tier = max(t.tier for t in missing)
    return f"({what}: needs {_tier_fix(tier, surface)}.)"


def _toolset_fix(toolsets: Sequence[str], deployment: Deployment) -> str:
    names = ", ".join(toolsets)
    plural = "toolsets" if len(toolsets) > 1 else "toolset"
    if deployment == "stdio":
        return f"the {names} {plural}: add {names} to SEVDESK_TOOLSETS"
    return f"the {names} {plural}, which the server's operator enables in SEVDESK_TOOLSETS"


def _tier_fix(tier: Tier, surface: Surface) -> str:
    if surface.deployment == "oauth":
        return (
            f"the {tier} permission: reconnect and grant it (the server's operator must allow "
            f"{tier} in SEVDESK_ALLOW)"
        )
    who = "" if surface.deployment == "stdio" else "ask the server's operator to "
    if surface.read_only:
        return f"the {tier} tier: {who}unset SEVDESK_READ_ONLY and add {tier} to SEVDESK_ALLOW"
    return f"the {tier} tier: {who}add {tier} to SEVDESK_ALLOW"
