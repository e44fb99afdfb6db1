"""Routing of the fake: ``@router.route("GET", "/Contact/{id}")`` and the request context.

A route module creates its own :class:`Router`, registers handlers on it, and
:mod:`sevdesk_mcp.fake.routes` joins them. Handlers are synchronous, take a :class:`Context`
and return a :class:`Reply`; they raise :class:`~sevdesk_mcp.fake.wire.FakeError` for error
answers. Paths are those after ``/api/v1``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from sevdesk_mcp.fake.coerce import parse_body
from sevdesk_mcp.fake.faults import Faults
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import FakeError, not_found
from sevdesk_mcp.jsontypes import JsonObject

_PARAM: Final = re.compile(r"\{(\w+)\}")
_TRUE_QUERY: Final = frozenset({"1", "true"})


@dataclass(frozen=True, slots=True)
class Reply:
    """A success answer: status and the JSON body."""

    payload: JsonObject
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(slots=True)
class Context:
    """One request as a handler sees it."""

    store: Store
    method: str
    path: str
    query: Mapping[str, str]
    body: bytes = b""
    content_type: str = "application/json"
    params: Mapping[str, str] = field(default_factory=dict)
    faults: Faults = field(default_factory=Faults)

    def path_id(self, object_name: str, name: str = "id") -> int:
        """:returns: the path parameter ``name`` as an id.

        :raises FakeError: 404 code 151 when it is not a number, as for an unknown id.
        """
        raw = self.params[name]
        if not raw.isdigit():
            raise not_found(object_name, raw)
        return int(raw)

    def json(self) -> dict[str, object]:
        """:returns: the body as an object. :raises FakeError: 400 when it is malformed."""
        return parse_body(self.body, self.content_type)

    def flag(self, key: str) -> bool:
        """:returns: whether query parameter ``key`` is ``true`` or ``1``."""
        return self.query.get(key, "").lower() in _TRUE_QUERY


Handler = Callable[[Context], Reply]


def _compile(template: str) -> re.Pattern[str]:
    parts: list[str] = []
    position = 0
    for found in _PARAM.finditer(template):
        parts.append(re.escape(template[position : found.start()]))
        parts.append(f"(?P<{found.group(1)}>[^/]+)")
        position = found.end()
    parts.append(re.escape(template[position:]))
    return re.compile("".join(parts))


@dataclass(frozen=True, slots=True)
class Route:
    """A method, a compiled path template and its handler."""

    method: str
    template: str
    pattern: re.Pattern[str]
    handler: Handler


class Router:
    """Handlers by method and path template."""

    def __init__(self) -> None:
        self.routes: list[Route] = []

    def route(self, method: str, template: str) -> Callable[[Handler], Handler]:
        """Register the decorated handler for ``method`` and ``template``.

        :returns: the decorator, which returns the handler unchanged.
        """

        def register(handler: Handler) -> Handler:
            self.routes.append(Route(method, template, _compile(template), handler))
            return handler

        return register

    def include(self, *others: Router) -> Router:
        """Add the routes of ``others``; literal templates win over parameterised ones.

        :returns: this router.
        """
        for other in others:
            self.routes.extend(other.routes)
        self.routes.sort(key=lambda r: r.template.count("{"))
        return self

    def match(self, method: str, path: str) -> tuple[Handler, dict[str, str]]:
        """:returns: the handler for ``method`` and ``path`` and its path parameters.

        :raises FakeError: 404 for an unknown path or method (removed endpoints included).
        """
        for route in self.routes:
            found = route.pattern.fullmatch(path)
            if found and route.method == method:
                return route.handler, found.groupdict()
        raise FakeError(404, f"Unknown path: {method} {path}")
