"""What the UBL and CII readers look up with: an element with namespaced look-ups, fast for
the plain child paths the readers use (the pieces they build alike are in :mod:`.pieces` and
:mod:`.amounts`)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.einvoice import values as v

_PLAIN: Final = re.compile(r"^[A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)?$")
_COMPILED: Final[dict[int, tuple[Mapping[str, str], dict[str, tuple[str, ...] | None]]]] = {}
_MAX_COMPILED: Final = 4096


def steps(path: str, namespaces: Mapping[str, str]) -> tuple[str, ...] | None:
    """:returns: ``path`` as the ``{namespace}name`` tags of its child steps, or ``None`` when
    it is more than a chain of child names (ElementTree's own look-up serves it then).

    ElementTree compiles every prefixed path again and again once more than 100 paths are in
    use (its cache is cleared past that), which was most of the reading time; a plain chain of
    child names is resolved here once per syntax.
    """
    known = _known(namespaces)
    if path in known:
        return known[path]
    if len(known) >= _MAX_COMPILED:
        known.clear()
    known[path] = found = _compiled(path, namespaces)
    return found


def _known(namespaces: Mapping[str, str]) -> dict[str, tuple[str, ...] | None]:
    """:returns: the paths compiled so far for ``namespaces`` (one dictionary per mapping)."""
    entry = _COMPILED.get(id(namespaces))
    if entry is None or entry[0] is not namespaces:
        entry = _COMPILED[id(namespaces)] = (namespaces, {})
    return entry[1]


def _compiled(path: str, namespaces: Mapping[str, str]) -> tuple[str, ...] | None:
    tags: list[str] = []
    for step in path.split("/"):
        prefix, colon, local = step.partition(":")
        if not _PLAIN.match(step) or (colon and prefix not in namespaces):
            return None
        tags.append(f"{{{namespaces[prefix]}}}{local}" if colon else step)
    return tuple(tags)


def first(element: ET.Element, tags: tuple[str, ...]) -> ET.Element | None:
    """:returns: the first element along ``tags`` in document order, as ``find`` would (each
    step is ElementTree's own C look-up of a plain tag)."""
    tag = tags[0]
    if len(tags) == 1:
        return element.find(tag)
    rest = tags[1:]
    child = element.find(tag)
    if child is None:
        return None
    found = first(child, rest)
    if found is not None:
        return found
    for child in element.findall(tag)[1:]:
        found = first(child, rest)
        if found is not None:
            return found
    return None


def every(element: ET.Element, tags: tuple[str, ...]) -> list[ET.Element]:
    """:returns: every element along ``tags`` in document order, as ``findall`` would."""
    current = element.findall(tags[0])
    for tag in tags[1:]:
        current = [child for parent in current for child in parent.findall(tag)]
    return current


class Node:
    """An element with look-ups in the syntax's namespaces (``None``: an absent element)."""

    __slots__ = ("_known", "_ns", "el")

    def __init__(
        self,
        element: ET.Element | None,
        namespaces: Mapping[str, str],
        known: dict[str, tuple[str, ...] | None] | None = None,
    ) -> None:
        """``known``: the paths compiled for ``namespaces``, as a node's children share them."""
        self.el = element
        self._ns = namespaces
        self._known = _known(namespaces) if known is None else known

    def child(self, path: str) -> Node:
        """:returns: the first element at ``path`` as a node (absent: a node of ``None``)."""
        return Node(self.find(path), self._ns, self._known)

    def find(self, path: str) -> ET.Element | None:
        """:returns: the first element at ``path``, if any."""
        if self.el is None:
            return None
        tags = self._known[path] if path in self._known else steps(path, self._ns)
        return self.el.find(path, dict(self._ns)) if tags is None else first(self.el, tags)

    def all(self, path: str) -> list[ET.Element]:
        """:returns: every element at ``path``."""
        if self.el is None:
            return []
        tags = self._known[path] if path in self._known else steps(path, self._ns)
        return self.el.findall(path, dict(self._ns)) if tags is None else every(self.el, tags)

    def nodes(self, path: str) -> list[Node]:
        """:returns: every element at ``path`` as a node."""
        found = self.all(path)
        # most such lists are empty: no comprehension for them (it is a call before 3.12)
        return [Node(e, self._ns, self._known) for e in found] if found else []

    def texts(self, *paths: str) -> list[str]:
        """:returns: the cleaned texts at each of ``paths`` in turn that are not empty."""
        return [t for path in paths for e in self.all(path) if (t := v.text(e))]

    def attributes(self, path: str, name: str) -> list[str]:
        """:returns: the values of the attribute ``name`` at ``path`` that are not empty."""
        return [t for e in self.all(path) if (t := e.get(name))]

    def text(self, path: str) -> str | None:
        """:returns: the cleaned text at ``path``, if any."""
        return v.text(self.find(path))

    def lines(self, path: str) -> str | None:
        """:returns: the text at ``path`` with its line breaks kept (:func:`values.lines`)."""
        return v.lines(self.find(path))

    def amount(self, path: str, field: str) -> Decimal | None:
        """:returns: the decimal at ``path``, if any.

        :raises EInvoiceRefusedError: if it is no decimal number (named by ``field``).
        """
        return v.amount(self.find(path), field)

    def date(self, path: str) -> str | None:
        """:returns: the date at ``path`` as ISO text, if any."""
        return v.date(self.find(path))
