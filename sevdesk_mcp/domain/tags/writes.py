"""Adding a tag to an invoice, credit note, order or receipt, and removing it again.

Adding is ``POST /Tag/Factory/create`` with the name and the object: sevDesk creates the tag
when the account has none of that name. Removing has no documented request for one relation:
the API deletes only a whole tag (``DELETE /Tag/{id}``, with its relations). So a tag is removed
from an object only when that object is the last one carrying it, which deletes the tag; a tag
other objects carry is refused, naming them (the web app takes it off one object).
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import find_one
from sevdesk_mcp.domain.tags.objects import (
    Kind,
    Target,
    kind_word,
    name_ref,
    read_target,
    same_ref,
)
from sevdesk_mcp.domain.tags.read import Tags, Untrusted, names, read_tags
from sevdesk_mcp.domain.writes import Prepared, Progress, ref
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.safety.preview import Fact, Preview, Said, quoted, say
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.envelope import one
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_tags import Tag, TagRelation

TagAction = Literal["add", "remove"]
MAX_OTHERS: Final = 5  # other objects of a tag named in a refusal
REMOVE_UNDO: Final = Said(
    "Adding the tag again (action add) creates a new tag of this name, with a new id.",
    "Den Tag erneut hinzuzufügen (action add) legt einen neuen Tag dieses Namens an, mit neuer ID.",
)
ADD_NEW_UNDO: Final = Said(
    "Removing it again (action remove) deletes the new tag.",
    "Wieder entfernen (action remove) löscht den neuen Tag.",
)
ADD_SHARED_UNDO: Final = Said(
    "Other objects carry this tag, so only sevDesk's web app takes it off this one again: the "
    "API removes a tag only as a whole.",
    "Andere Objekte tragen diesen Tag; nur die Web-Oberfläche von sevDesk nimmt ihn hier wieder "
    "ab: die API entfernt einen Tag nur als Ganzes.",
)


class TagPlan(msgspec.Struct, frozen=True):
    """What ``execute_tag`` sends: the Factory create of ``name`` on ``target`` (add), or the
    DELETE of tag ``tag_id`` (remove: ``target`` is its last object)."""

    action: TagAction
    name: str
    target: Target
    tag_id: int | None


class TagWritten(msgspec.Struct, frozen=True, kw_only=True):
    """A tag added or removed, as read back."""

    action: TagAction
    tag: Untrusted | None
    tag_id: int | None
    object: str
    object_id: int
    number: Untrusted | None
    note: str | None = None


async def prepare_tag(
    client: SevdeskPort, action: TagAction, name: str, kind: Kind, object_id: int
) -> Prepared[TagPlan]:
    """Plan adding tag ``name`` to an object or removing it (reads only).

    :returns: the preview and the plan.
    :raises PreconditionError: for an unknown object.
    :raises ToolError: adding a tag the object carries; removing a tag that does not exist, that
        the object does not carry, or that other objects carry too (naming them).
    :raises UpstreamError: if sevDesk cannot be read.
    """
    target = await read_target(client, kind, object_id)
    found = await read_tags(client)
    tag = found.named(name)
    if action == "add":
        return _plan_add(found, tag, name, target)
    return await _plan_remove(client, found, tag, name, target)


def _plan_add(found: Tags, tag: Tag | None, name: str, target: Target) -> Prepared[TagPlan]:
    shown_name = tag.name or name if tag else name
    if tag is not None and any(same_ref(r.object, target) for r in found.relations_of(tag.id)):
        raise ToolError(
            f"Nothing would change: {target.words()} already carries tag {fence(shown_name)}. "
            "Pick another tag or another object."
        )
    carriers = len(found.relations_of(tag.id)) if tag else 0
    about = (
        say("existing tag {0} (on {1} objects)", "vorhandener Tag {0} (an {1} Objekten)",
            quoted(shown_name), carriers)
        if tag else say("new tag {0}", "neuer Tag {0}", quoted(shown_name))
    )  # fmt: skip
    preview = Preview(
        action=say("Tag {0} with {1} in sevDesk", "{0} in sevDesk mit dem Tag {1} versehen",
                   target.said(), quoted(shown_name)),
        facts=[Fact(Said("Tag", "Tag"), about), Fact(Said("Object", "Objekt"), target.said())],
        undo=ADD_SHARED_UNDO if carriers else ADD_NEW_UNDO,
    )  # fmt: skip
    return Prepared(preview, TagPlan("add", shown_name, target, tag.id if tag else None))


async def _plan_remove(
    client: SevdeskPort, found: Tags, tag: Tag | None, name: str, target: Target
) -> Prepared[TagPlan]:
    if tag is None:
        raise ToolError(f"There is no tag {fence(name)}; the tags are: {names(found.tags)}.")
    relations = found.relations_of(tag.id)
    if not any(same_ref(r.object, target) for r in relations):
        raise ToolError(
            f"{target.words()} does not carry tag {fence(tag.name)}; its tags: "
            f"{names(found.on(target))}."
        )
    others = [r for r in relations if not same_ref(r.object, target)]
    if others:
        raise ToolError(
            f"Tag {fence(tag.name)} is also on {len(others)} other objects "
            f"({await _others(client, others)}). sevDesk's API removes a tag only as a whole, "
            "never from one object; take it off this one in sevDesk's web app."
        )
    preview = Preview(
        action=say("Remove tag {0} from {1} in sevDesk", "Tag {0} in sevDesk von {1} entfernen",
                   quoted(tag.name), target.said()),
        facts=[Fact(Said("Tag", "Tag"), say(
            "{0} (id {1}): on no other object, so sevDesk deletes the tag itself",
            "{0} (ID {1}): an keinem anderen Objekt, daher löscht sevDesk den Tag selbst",
            quoted(tag.name), tag.id))],
        undo=REMOVE_UNDO,
    )  # fmt: skip
    return Prepared(preview, TagPlan("remove", tag.name or name, target, tag.id))


async def _others(client: SevdeskPort, others: list[TagRelation]) -> str:
    shown = []
    for relation in others[:MAX_OTHERS]:
        if relation.object is None:
            continue
        named = await name_ref(client, relation.object)
        kind = kind_word(relation.object.objectName)
        shown.append(named.words() if named else f"{kind} {relation.object.id}")
    more = f" and {len(others) - MAX_OTHERS} more" if len(others) > MAX_OTHERS else ""
    return ", ".join(shown) + more


async def execute_tag(client: SevdeskPort, plan: TagPlan, progress: Progress) -> TagWritten:
    """Send the one planned request and read the tags back.

    :returns: what was written, with a note when the read-back does not show it.
    :raises UpstreamError: if the write or the read-back fails.
    """
    if plan.action == "remove" and plan.tag_id is not None:
        return await _remove(client, plan, plan.tag_id, progress)
    target = plan.target
    body: JsonObject = {"name": plan.name, "object": ref(target.id, target.model)}
    answer = one(await client.send("POST", api_path("Tag", "Factory", "create"), json=body))
    relation = wire.parse(answer, TagRelation)
    progress.done(f"tagged {target.words()}")
    tag_id = relation.tag.id if relation.tag else plan.tag_id
    found = await read_tags(client)
    carried = found.relations_of(tag_id) if tag_id is not None else []
    kept = any(same_ref(r.object, target) for r in carried)
    note = None if kept else "sevDesk's tag relations do not show the new tag yet."
    return _written(plan, tag_id, note)


async def _remove(
    client: SevdeskPort, plan: TagPlan, tag_id: int, progress: Progress
) -> TagWritten:
    await client.send("DELETE", api_path("Tag", tag_id))
    progress.done(f"deleted tag {tag_id}")
    still = await find_one(client, "Tag", tag_id, Tag)
    return _written(plan, tag_id, None if still is None else f"sevDesk still lists tag {tag_id}.")


def _written(plan: TagPlan, tag_id: int | None, note: str | None) -> TagWritten:
    return TagWritten(
        action=plan.action,
        tag=fence(plan.name),
        tag_id=tag_id,
        object=plan.target.kind,
        object_id=plan.target.id,
        number=fence(plan.target.number),
        note=note,
    )
