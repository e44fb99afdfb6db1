"""The shape of an answer, to compare a recording with the fake sevDesk's answer.

Values differ between accounts (and a sanitized recording has none left), so only the shape
is compared: the envelope's keys, the kind of ``objects`` (list, object, scalar), and for every
field of every object the kinds of value it carries: ``string``, ``number``, ``bool``,
``object``, ``list``. This is where the Q4 rules show (ids, sums and flags are strings,
``paidAmount`` a number). ``null`` says nothing about a field's kind, so a field that is
``null`` on one side only is not a difference; a field missing on one side is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from sevdesk_mcp.jsontypes import JsonValue

NULL: Final = "null"


def kind(value: JsonValue) -> str:
    """:returns: the JSON kind of ``value``."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object"


@dataclass(slots=True)
class Shape:
    """The kinds a value took, and for objects the shape of each field (lists: of items)."""

    kinds: set[str] = field(default_factory=set)
    fields: dict[str, Shape] = field(default_factory=dict)
    items: Shape | None = None

    def add(self, value: JsonValue) -> Shape:
        """Merge ``value`` into this shape.

        :returns: this shape.
        """
        self.kinds.add(kind(value))
        if isinstance(value, dict):
            for key, inner in value.items():
                self.fields.setdefault(key, Shape()).add(inner)
        elif isinstance(value, list):
            self.items = self.items or Shape()
            for inner in value:
                self.items.add(inner)
        return self


def shape_of(value: JsonValue) -> Shape:
    """:returns: the shape of ``value``."""
    return Shape().add(value)


def differences(recorded: JsonValue, fake: JsonValue) -> list[str]:
    """:returns: where the fake's answer has another shape than the recorded one (empty when
    they match), each as ``path: what``."""
    return list(_compare(shape_of(recorded), shape_of(fake), "$"))


def _compare(recorded: Shape, fake: Shape, path: str) -> Iterator[str]:
    seen, given = recorded.kinds - {NULL}, fake.kinds - {NULL}
    if seen and given and seen != given:
        yield f"{path}: recorded {'/'.join(sorted(seen))}, the fake sends {'/'.join(sorted(given))}"
        return
    for key in sorted(recorded.fields.keys() - fake.fields.keys()):
        yield f"{path}.{key}: recorded, missing in the fake's answer"
    for key in sorted(fake.fields.keys() - recorded.fields.keys()):
        yield f"{path}.{key}: sent by the fake, not in the recording"
    for key in sorted(recorded.fields.keys() & fake.fields.keys()):
        yield from _compare(recorded.fields[key], fake.fields[key], f"{path}.{key}")
    if recorded.items is not None and fake.items is not None:
        yield from _compare(recorded.items, fake.items, f"{path}[]")
