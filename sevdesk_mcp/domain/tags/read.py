"""Reading tags: every tag with how many objects carry it, the objects of one tag, the tags of
one object.

``GET /TagRelation`` documents no filter (unknown ones are ignored, Q12), so the relations are
read whole and matched here; a tag's name is third-party text, fenced in results.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Annotated, Final

import msgspec

from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.tags.objects import Target, kind_word, name_ref, same_ref
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.together import both, each
from sevdesk_mcp.sevdesk.wire import Ref
from sevdesk_mcp.sevdesk.wire_tags import Tag, TagRelation

MAX_TAGS: Final = 1000
MAX_RELATIONS: Final = 10_000
MAX_NAMED: Final = 25  # objects of one tag read for their numbers
Untrusted = Annotated[str, msgspec.Meta(description="Third-party text, fenced in ⟦ ⟧")]


class TagSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One tag and how many objects of each kind carry it."""

    id: int
    name: Untrusted | None
    objects: int
    by_kind: dict[str, int]


class TaggedObject(msgspec.Struct, frozen=True, kw_only=True):
    """One object a tag is on."""

    kind: str
    id: int
    number: Untrusted | None = None


class TagList(msgspec.Struct, frozen=True, kw_only=True):
    """Tags, and the objects of the one tag asked for."""

    tags: list[TagSummary]
    objects: list[TaggedObject] | None = None
    note: str | None = None


class Tags(msgspec.Struct, frozen=True):
    """The account's tags and relations as read (``truncated``: not all relations were read)."""

    tags: list[Tag]
    relations: list[TagRelation]
    truncated: bool

    def relations_of(self, tag_id: int) -> list[TagRelation]:
        """:returns: the relations of tag ``tag_id``."""
        return [r for r in self.relations if r.tag is not None and r.tag.id == tag_id]

    def on(self, target: Target) -> list[Tag]:
        """:returns: the tags ``target`` carries."""
        ids = {r.tag.id for r in self.relations if r.tag is not None and same_ref(r.object, target)}
        return [t for t in self.tags if t.id in ids]

    def named(self, name: str) -> Tag | None:
        """:returns: the tag of this name (exactly, else the one equal but for case)."""
        exact = [t for t in self.tags if t.name == name]
        if exact:
            return exact[0]
        folded = [t for t in self.tags if (t.name or "").casefold() == name.casefold()]
        return folded[0] if len(folded) == 1 else None


async def read_tags(client: SevdeskPort) -> Tags:
    """:returns: every tag and every tag relation of the account.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    tag_page, relation_page = await both(
        lambda: client.get_all("/Tag", max_items=MAX_TAGS),
        lambda: client.get_all("/TagRelation", max_items=MAX_RELATIONS),
    )
    return Tags(
        tags=wire.parse_all(tag_page.items, Tag),
        relations=wire.parse_all(relation_page.items, TagRelation),
        truncated=tag_page.truncated or relation_page.truncated,
    )


async def list_tags(
    client: SevdeskPort, *, tag_id: int | None = None, target: Target | None = None
) -> TagList:
    """:returns: every tag with its counts; with ``tag_id`` that tag and its objects (the first
        :data:`MAX_NAMED` with their numbers), with ``target`` the tags that object carries.

    :raises PreconditionError: for an unknown ``tag_id``.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    found = await read_tags(client)
    note = f"Only the first {MAX_RELATIONS} tag relations were read." if found.truncated else None
    if target is not None:
        shown = [summary(t, found) for t in found.on(target)]
        return TagList(tags=shown, note=note)
    if tag_id is None:
        return TagList(tags=[summary(t, found) for t in found.tags], note=note)
    tag = next((t for t in found.tags if t.id == tag_id), None)
    if tag is None:
        raise PreconditionError(
            f"There is no tag {tag_id}; leave tag_id out to list every tag with its id.",
            record=f"Tag {tag_id}",
            field="tag_id",
        )
    objects = await _objects(client, found.relations_of(tag_id))
    rest = len(found.relations_of(tag_id)) - MAX_NAMED
    if rest > 0:
        note = f"{rest} more objects carry this tag; only their kind and id are shown."
    return TagList(tags=[summary(tag, found)], objects=objects, note=note)


def summary(tag: Tag, found: Tags) -> TagSummary:
    """:returns: the list form of ``tag``, its name fenced."""
    kinds = Counter(kind_word(r.object.objectName) for r in found.relations_of(tag.id) if r.object)
    return TagSummary(
        id=tag.id,
        name=fence(tag.name),
        objects=sum(kinds.values()),
        by_kind=dict(sorted(kinds.items())),
    )


async def _objects(client: SevdeskPort, relations: list[TagRelation]) -> list[TaggedObject]:
    refs = [r.object for r in relations if r.object is not None]
    named = await each([_namer(client, ref) for ref in refs[:MAX_NAMED]])
    numbers = [t.number if t else None for t in named] + [None] * (len(refs) - len(named))
    return [
        TaggedObject(kind=kind_word(ref.objectName), id=ref.id, number=fence(number))
        for ref, number in zip(refs, numbers, strict=True)
    ]


def _namer(client: SevdeskPort, ref: Ref) -> Callable[[], Awaitable[Target | None]]:
    return lambda: name_ref(client, ref)


def names(tags: list[Tag]) -> str:
    """:returns: the tags' names for a message, fenced and apart by commas (``none``)."""
    shown = [fence(t.name) or f"tag {t.id}" for t in tags[:20]]
    more = f" and {len(tags) - 20} more" if len(tags) > 20 else ""
    return (", ".join(shown) + more) if shown else "none"
