"""The embedded files of a ZUGFeRD / Factur-X PDF, found by opening only what leads to them.

From the catalog: ``/Names`` -> ``/EmbeddedFiles`` -> its ``/Kids`` (one level) and ``/Names``
-> each file specification, the same walk and the same leniency as ``pypdf``'s
``attachment_list`` (a malformed entry is skipped). Pages, fonts and content streams are never
opened. An object inside an object stream is parsed alone, with ``pypdf``'s object parser, at
the offset the stream's header gives for it; ``pypdf`` itself would parse every object of that
stream first. The object stream is still inflated by ``pypdf`` under the caller's caps; any
header that is not plainly well formed is left to ``pypdf``'s own lookup. Only file
specifications are resolved here: no embedded file is inflated until the caller asks for it.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    import pypdf
    from pypdf.generic import ArrayObject, DictionaryObject, PdfObject


class Entry(msgspec.Struct, frozen=True):
    """One embedded file: the names it goes by and its file specification."""

    names: tuple[str, ...]
    spec: DictionaryObject


class _Stream(msgspec.Struct):
    """An inflated object stream: its bytes, where its objects begin, and their offsets."""

    data: io.BytesIO
    first: int
    offsets: dict[int, int]


class Objects(msgspec.Struct):
    """Resolves indirect references of one reader, objects in object streams one by one."""

    reader: pypdf.PdfReader
    _streams: dict[int, _Stream | None] = msgspec.field(default_factory=dict)

    def resolve(self, value: object) -> object:
        """:returns: the object ``value`` refers to, or ``value`` if it is direct.

        :raises pypdf.errors.PyPdfError: if ``pypdf`` cannot read it (or a cap is reached).
        """
        from pypdf.generic import IndirectObject  # noqa: PLC0415 - only for PDFs

        if not isinstance(value, IndirectObject):
            return value
        key = (value.generation, value.idnum)
        if key not in self.reader.resolved_objects and key[0] == 0:
            found = self._from_object_stream(value.idnum)
            if found is not None:
                return found
        return self.reader.get_object(value)

    def _from_object_stream(self, idnum: int) -> PdfObject | None:
        from pypdf._utils import read_non_whitespace  # noqa: PLC0415 - only for PDFs
        from pypdf.errors import PdfStreamError  # noqa: PLC0415
        from pypdf.generic import read_object  # noqa: PLC0415

        where = self.reader.xref_objStm.get(idnum)
        if where is None:
            return None
        stream = self._stream(int(where[0]))
        if stream is None or idnum not in stream.offsets:
            return None
        stream.data.seek(stream.first + stream.offsets[idnum])
        read_non_whitespace(stream.data)
        stream.data.seek(-1, 1)
        try:
            obj = read_object(stream.data, self.reader)
        except PdfStreamError:
            return None  # pypdf's own lookup decides what a broken member means
        return self.reader.cache_indirect_object(0, idnum, obj)

    def _stream(self, number: int) -> _Stream | None:
        if number not in self._streams:
            self._streams[number] = self._opened(number)
        return self._streams[number]

    def _opened(self, number: int) -> _Stream | None:
        from pypdf.generic import StreamObject  # noqa: PLC0415 - only for PDFs

        if number in self.reader.xref_objStm:
            return None  # an object stream inside an object stream: pypdf's lookup refuses it
        stm = self.reader.get_object(number)
        if not isinstance(stm, StreamObject) or stm.get("/Type") != "/ObjStm":
            return None
        count, first = stm.get("/N"), stm.get("/First")
        if type(count) is bool or not isinstance(count, int):
            return None
        if type(first) is bool or not isinstance(first, int):
            return None
        data = stm.get_data()  # inflated by pypdf under the caller's caps
        offsets = object_offsets(data, int(count), int(first))
        return None if offsets is None else _Stream(io.BytesIO(data), int(first), offsets)


def object_offsets(data: bytes, count: int, first: int) -> dict[int, int] | None:
    """Read an object stream's header: ``count`` pairs of object number and offset.

    :returns: each object's offset (the first one given for a number), or ``None`` unless the
        header is plainly well formed: digits only, ``count`` pairs, offsets rising and inside
        the stream.
    """
    if count < 0 or not 0 <= first <= len(data):
        return None
    tokens = data[:first].split(maxsplit=2 * count)[: 2 * count]
    if len(tokens) != 2 * count or not all(t.isdigit() for t in tokens):
        return None
    offsets: dict[int, int] = {}
    last = -1
    for at in range(0, len(tokens), 2):
        number, offset = int(tokens[at]), int(tokens[at + 1])
        if offset <= last or first + offset > len(data):
            return None
        last = offset
        offsets.setdefault(number, offset)
    return offsets


def embedded_files(objects: Objects, catalog: DictionaryObject) -> Iterator[Entry]:
    """The catalog's embedded files, in name-tree order.

    :returns: an iterator of entries; a malformed tree or entry is skipped, as ``pypdf`` does.
    :raises pypdf.errors.PyPdfError: if ``pypdf`` cannot read an object (or a cap is reached).
    """
    from pypdf.generic import DictionaryObject  # noqa: PLC0415 - only for PDFs

    names = objects.resolve(catalog.raw_get("/Names")) if "/Names" in catalog else None
    if not isinstance(names, DictionaryObject) or "/EmbeddedFiles" not in names:
        return
    tree = objects.resolve(names.raw_get("/EmbeddedFiles"))
    if not isinstance(tree, DictionaryObject):
        return
    if "/Kids" in tree:
        kids = _array(objects, tree, "/Kids", empty_if_null=True)
        if kids is None:
            return  # as pypdf: a /Kids that is no array ends the walk
        for kid in kids:
            node = objects.resolve(kid)
            if isinstance(node, DictionaryObject) and "/Names" in node:
                yield from _leaf(objects, _array(objects, node, "/Names"))
    if "/Names" in tree:
        yield from _leaf(objects, _array(objects, tree, "/Names"))


def _array(
    objects: Objects, node: DictionaryObject, key: str, *, empty_if_null: bool = False
) -> ArrayObject | None:
    from pypdf.generic import ArrayObject, NullObject  # noqa: PLC0415 - only for PDFs

    value = objects.resolve(node.raw_get(key))
    if isinstance(value, NullObject) and empty_if_null:
        return ArrayObject()
    return value if isinstance(value, ArrayObject) else None


def _leaf(objects: Objects, names: ArrayObject | None) -> Iterator[Entry]:
    """The entries of one name-tree leaf ``[name_1 spec_1 name_2 spec_2 ...]``."""
    from pypdf.generic import DictionaryObject  # noqa: PLC0415 - only for PDFs

    if names is None:
        return
    for at, item in enumerate(names):
        if isinstance(item, str):
            continue  # a name: read together with the specification after it
        spec = objects.resolve(item)
        if isinstance(spec, DictionaryObject):
            yield Entry(_names(objects, objects.resolve(names[at - 1]), spec), spec)


def _names(objects: Objects, name: object, spec: DictionaryObject) -> tuple[str, ...]:
    """:returns: the name-tree name and, if different, the specification's ``/UF`` or ``/F``."""
    for key in ("/UF", "/F"):
        if key in spec:
            other = objects.resolve(spec.raw_get(key))
            if other is not None and other.__class__.__name__ != "NullObject":
                return (str(name),) if other == name else (str(name), str(other))
    return (str(name),)


def content(objects: Objects, spec: DictionaryObject) -> bytes:
    """Inflate one embedded file (``/EF`` ``/UF``, else ``/F``) under the caller's caps.

    :returns: the file's bytes.
    :raises pypdf.errors.PyPdfError: if the specification has no embedded file, or a cap is
        reached while inflating it.
    """
    from pypdf.errors import PdfReadError  # noqa: PLC0415 - only for PDFs
    from pypdf.generic import DictionaryObject, StreamObject  # noqa: PLC0415

    holder = objects.resolve(spec.raw_get("/EF")) if "/EF" in spec else None
    if not isinstance(holder, DictionaryObject):
        raise PdfReadError("embedded file specification without /EF")
    for key in ("/UF", "/F"):
        if key in holder:
            stream = objects.resolve(holder.raw_get(key))
            if not isinstance(stream, StreamObject):
                raise PdfReadError("embedded file that is no stream")
            return bytes(stream.get_data())
    raise PdfReadError("embedded file specification without /F")
