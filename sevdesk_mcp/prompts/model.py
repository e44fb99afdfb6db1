"""What a workflow prompt is made of. All text here is trusted: it is written in this package,
never taken from sevDesk or from a request."""

from __future__ import annotations

import re
from typing import Final, Literal

import msgspec

Completion = Literal["contact", "invoice_number", "order_number"]
"""What ``completion/complete`` suggests for an argument: contact names or document numbers."""

TEXT: Final = re.compile(r"^[^\x00-\x1f\x7f]{1,200}$")
MONTH: Final = re.compile(r"^[0-9]{4}-(0[1-9]|1[0-2])$")
PERIOD: Final = re.compile(r"^[0-9]{4}(-(0[1-9]|1[0-2])|-Q[1-4])?$")
NUMBER: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,39}$")


class Argument(msgspec.Struct, frozen=True):
    """One prompt argument.

    :param pattern: what a value must match; :param hint: the allowed form, for the refusal.
    """

    name: str
    description: str
    pattern: re.Pattern[str] = TEXT
    hint: str = "one line of at most 200 characters"
    required: bool = False
    completion: Completion | None = None


class Step(msgspec.Struct, frozen=True):
    """One step of a workflow.

    :param text: what to do, without tool names (they are added when rendered).
    :param tools: the tools the step names; the step is shown only if all are registered.
    :param feature: the tools' area in plain words (``e-invoice``), for the "needs" line when
        this server version does not have them at all.
    """

    text: str
    tools: tuple[str, ...]
    feature: str | None = None


class Workflow(msgspec.Struct, frozen=True):
    """A workflow prompt.

    :param requires: the tools that must be registered for the prompt to be offered.
    :param goal: the opening sentence; the arguments given follow it, fenced.
    """

    name: str
    title: str
    description: str
    goal: str
    steps: tuple[Step, ...]
    requires: tuple[str, ...] = ()
    arguments: tuple[Argument, ...] = ()
