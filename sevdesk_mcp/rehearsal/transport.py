"""The rehearsal: an httpx transport that reads the real account and writes to an overlay.

A plain read goes to the real account (through the :class:`~.guard.Guard`), what comes back
seeds the overlay, and the answer is the real one with the rehearsal's changes laid over it:
a record written in the rehearsal (or a sub-resource of one, such as its positions) comes from
the overlay, a list is merged (:mod:`.merge`). Every other request goes to the overlay's engine
(the fake sevDesk) only, after the records it names were read from the real account, and never
upstream; each applied change is logged as a
:class:`~sevdesk_mcp.safety.rehearsal.RehearsalChange`.

Records created in the rehearsal get ids from 10**12 on (:mod:`.tables`), far above the ids of
a real account. Before a write to an invoice, credit note or order, the real range is read
(without taking a number) and the overlay numbers in its format from its next value
(:mod:`.numbers`), so a finalized draft gets the number sevDesk would give it. Before the first
receipt is saved, the real booking accounts and receipt guidance are read into the overlay
(:mod:`.chart`), so the receipt is checked against the real account's chart. A write naming a
real record the engine cannot read is refused (:class:`~.seed.UnreadableRecordError`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Final

import anyio
import httpx
import msgspec

from sevdesk_mcp.fake.account_rules import SKR03, Chart
from sevdesk_mcp.fake.coerce import parse_body
from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.exchange import Incoming
from sevdesk_mcp.fake.exports import exports_of
from sevdesk_mcp.fake.transport import api_path
from sevdesk_mcp.fake.wire import FakeError
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.rehearsal import keep
from sevdesk_mcp.rehearsal.changes import BERLIN, Touched, describe, draft_status, snapshot
from sevdesk_mcp.rehearsal.chart import load_chart
from sevdesk_mcp.rehearsal.files import RehearsalFiles
from sevdesk_mcp.rehearsal.guard import Guard, is_read
from sevdesk_mcp.rehearsal.merge import merged
from sevdesk_mcp.rehearsal.numbers import follow, numbered_model
from sevdesk_mcp.rehearsal.seed import Key, Seeder, UnreadableRecordError
from sevdesk_mcp.rehearsal.tables import CREATED_ID_BASE, POSITIONS, TABLES, lift_ids, table_of
from sevdesk_mcp.rehearsal.upstream import (
    SEQUENCE_PATH,
    Upstream,
    decoded,
    has_record_read,
    is_json,
    named_refs,
    query_refs,
    real_range,
    ref_key,
)
from sevdesk_mcp.safety.rehearsal import RehearsalChange

_DROPPED_HEADERS: Final = frozenset({"content-length", "content-encoding", "transfer-encoding"})
_JSON: Final = (("Content-Type", "application/json"),)
_LIST_LIMIT: Final = "1000"
_UPLOAD: Final = "uploadTempFile"
SAVE_VOUCHER: Final = "/Voucher/Factory/saveVoucher"
# the actions that book, unbook or reset a record's payments (lower case; a PUT of a bank
# transaction, its last segment, marks it private or resets it)
_BOOKING_ACTIONS: Final = frozenset(
    {"bookamount", "resettoopen", "resettodraft", "cancelinvoice", "checkaccounttransaction"}
)


def _today() -> date:
    return datetime.now(BERLIN).date()


class Rehearsal(httpx.AsyncBaseTransport):
    """The transport of a rehearsal; it implements
    :class:`~sevdesk_mcp.safety.rehearsal.RehearsalLog`.

    :param real: the transport to the real account (the network's, or the demo books').
    :param chart: the fake's built-in chart the overlay falls back to when the real account
        lists no booking accounts (receipts are checked against the real ones, :mod:`.chart`).
    :param today: what the overlay treats as today (Berlin's date by default).
    """

    def __init__(
        self,
        real: httpx.AsyncBaseTransport,
        *,
        chart: Chart = SKR03,
        today: Callable[[], date] = _today,
    ) -> None:
        self._guard = Guard(real)
        self._chart: Chart = chart
        self._today = today
        self._engine: FakeSevdesk | None = None
        self._written: set[Key] = set()
        self._changes: list[RehearsalChange] = []
        self._token = secrets.token_hex(16)  # the overlay engine's own, never sent anywhere
        self._starting = anyio.Lock()
        self._chart_read = False  # the real booking accounts are in the overlay

    # RehearsalLog

    def changes(self) -> Sequence[RehearsalChange]:
        """:returns: the changes of the rehearsal, in order."""
        return tuple(self._changes)

    def upstream_refused(self) -> int:
        """:returns: how many requests the guard refused to send to the real account."""
        return self._guard.refused

    def real_transport(self) -> httpx.AsyncBaseTransport:
        """:returns: the real account for plain reads, past the overlay (the guard refuses
        anything else with :class:`~sevdesk_mcp.errors.RehearsalRefusedError`)."""
        return self._guard

    def written(self) -> frozenset[Key]:
        """:returns: the records written in the rehearsal, as ``(objectName, id)``."""
        return frozenset(self._written)

    def files(self, real: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        """:returns: the export file storage to download from in this rehearsal: the file of
        a DATEV job the overlay ran from the overlay, every other one from ``real``."""
        return RehearsalFiles(lambda: self._engine, real)

    @property
    def engine(self) -> FakeSevdesk | None:
        """The overlay's engine, once the first request built it."""
        return self._engine

    # the transport

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the answer to ``request`` (see the module's text).

        :raises httpx.HTTPError: when the real account cannot be reached for a read.
        :raises UnreadableRecordError: for a write naming a real record the overlay's engine
            cannot read (nothing is applied).
        """
        engine = await self._engine_for(request)
        path = api_path(request.url.path)
        query = dict(request.url.params.multi_items())
        if is_read(request):
            return await self._read(engine, request, path, query)
        return await self._write(engine, request, path, query)

    async def aclose(self) -> None:
        """Close the real transport."""
        await self._guard.aclose()

    async def _engine_for(self, request: httpx.Request) -> FakeSevdesk:
        """:returns: the overlay's engine, built on the first request (once, also when the
        first requests come at the same time) with the real account's bookkeeping version."""
        async with self._starting:
            if self._engine is None:
                version = await Upstream(self._guard, request).version()
                engine = FakeSevdesk(self._token, version, today=self._today(), chart=self._chart)
                lift_ids(engine.store)
                self._engine = engine
            return self._engine

    # keeping

    def save(self, path: Path, key: bytes, bound_to: bytes) -> None:
        """Keep the rehearsal in ``path``, encrypted under the 32-byte ``key`` and bound to the
        account ``bound_to`` (:mod:`.keep`).

        :raises StartupError: for a key that is not 32 bytes long.
        :raises OSError: when the file cannot be written.
        """
        store = self._engine.store if self._engine is not None else None
        kept = keep.kept_of(self._token, store, self._written, self._changes)
        keep.save(path, key, kept, bound_to)

    @classmethod
    def load(
        cls,
        path: Path,
        key: bytes,
        bound_to: bytes,
        real: httpx.AsyncBaseTransport,
        *,
        today: Callable[[], date] = _today,
    ) -> Rehearsal:
        """:returns: the rehearsal kept in ``path`` for the account ``bound_to``, continued in
        front of ``real``.

        :raises StartupError: when the file does not open under ``key``, or is another
            account's (see :func:`.keep.load`).
        :raises OSError: when the file cannot be read.
        """
        kept = keep.load(path, key, bound_to)
        chart = kept.store.chart if kept.store is not None else SKR03
        rehearsal = cls(real, chart=chart, today=today)
        rehearsal._token = kept.token
        rehearsal._written, rehearsal._changes = kept.written, kept.changes
        if kept.store is not None:
            engine = FakeSevdesk(kept.token, kept.store.version, today=today(), chart=chart)
            engine.store = kept.store
            store = kept.store
            rehearsal._chart_read = bool(store.own_accounts or store.own_accounting_types)
            keep.restore_files(kept)
            rehearsal._engine = engine
        return rehearsal

    # reads

    async def _read(
        self, engine: FakeSevdesk, request: httpx.Request, path: str, query: dict[str, str]
    ) -> httpx.Response:
        segments = path.strip("/").split("/")
        if self._of_written(segments) or _made_here(engine, segments, query):
            return self._overlay(engine, request, path, query, b"")
        response = await self._guard.handle_async_request(request)
        if not is_json(response):
            return response
        content = await response.aread()
        await response.aclose()
        body = decoded(content)
        objects = body.get("objects") if isinstance(body, dict) else None
        if response.status_code != httpx.codes.OK or not isinstance(body, dict):
            return _rebuilt(response, content, request)
        if path == SEQUENCE_PATH:
            self._raise_counter(engine, objects, query)
            return self._overlay(engine, request, path, query, b"")
        Seeder(engine.store, self._written).seed(objects)
        if len(segments) == 1 and isinstance(objects, list) and self._touches(segments[0]):
            body["objects"] = self._merged(engine, request, path, query, objects)
            return _json_response(response.status_code, body, request)
        return _rebuilt(response, content, request)

    def _of_written(self, segments: list[str]) -> bool:
        """:returns: whether the read names a record written in the rehearsal (by id, or one
        of its sub-resources)."""
        if len(segments) < 2 or not segments[1].isdigit():
            return False
        return (segments[0], int(segments[1])) in self._written

    def _touches(self, model: str) -> bool:
        return model in TABLES and any(key[0] == model for key in self._written)

    def _merged(
        self,
        engine: FakeSevdesk,
        request: httpx.Request,
        path: str,
        query: dict[str, str],
        real: list[JsonValue],
    ) -> list[JsonValue]:
        whole = {k: v for k, v in query.items() if k not in {"offset", "limit"}}
        whole["limit"] = _LIST_LIMIT
        answer = decoded(self._overlay(engine, request, path, whole, b"").content)
        overlay = answer.get("objects") if isinstance(answer, dict) else None
        first_page = query.get("offset", "0") in {"", "0"}
        rows = overlay if isinstance(overlay, list) else []
        return merged(real, rows, self._written, first_page=first_page)

    def _raise_counter(
        self, engine: FakeSevdesk, objects: JsonValue, query: Mapping[str, str]
    ) -> None:
        """Number the range in ``query`` as the real one (:func:`.numbers.follow`)."""
        model = numbered_model(SEQUENCE_PATH, query)
        real = real_range(objects)
        if model is not None and real is not None:
            follow(engine.store, model, real)

    # writes

    async def _write(
        self, engine: FakeSevdesk, request: httpx.Request, path: str, query: dict[str, str]
    ) -> httpx.Response:
        content = await request.aread()
        body = _body_of(content, request.headers.get("content-type", ""))
        upstream = Upstream(self._guard, request)
        _refuse_unreadable(
            await self._seed_named(engine, upstream, path, query, body), request.method, path
        )
        model = numbered_model(path, query)
        if model is not None:
            real = await upstream.next_number(model)
            if real is not None:
                follow(engine.store, model, real)
        if path == SAVE_VOUCHER and not self._chart_read:
            await load_chart(engine.store, upstream)
            self._chart_read = True
        engine.today = self._today()
        was_draft = _is_draft(engine, path, body)
        before, revision = snapshot(engine.store), engine.store.revision
        response = self._overlay(engine, request, path, query, content)
        moved = engine.store.revision != revision or path.endswith(_UPLOAD)
        if moved and response.status_code < httpx.codes.BAD_REQUEST:
            touched = Touched(before, snapshot(engine.store))
            self._written |= touched.keys()
            change = describe(
                engine.store, request.method, path, body, touched=touched, was_draft=was_draft
            )
            self._changes.append(change)
        return response

    async def _seed_named(
        self,
        engine: FakeSevdesk,
        upstream: Upstream,
        path: str,
        query: Mapping[str, str],
        body: Mapping[str, object],
    ) -> dict[Key, str]:
        """Read the records a write names (not written in the rehearsal yet) from the real
        account, with the positions of a document, so the engine applies the write to the
        books as sevDesk holds them now; a record already held is read again, as it may have
        changed at sevDesk since.

        :returns: the named records (and positions) the engine could not read, with why.
        """
        seeder = Seeder(engine.store, self._written)
        for key in _named(path, query, body):
            if key in self._written or key[1] >= CREATED_ID_BASE:
                continue
            if not has_record_read(key[0]):
                continue
            seeder.seed(await upstream.record(key))
            if key[0] in POSITIONS:
                pos_model, field = POSITIONS[key[0]]
                seeder.seed(await upstream.positions(key[0], key[1], pos_model, field))
        await self._seed_bookings(seeder, upstream, path)
        return seeder.unreadable

    async def _seed_bookings(self, seeder: Seeder, upstream: Upstream, path: str) -> None:
        """Before a booking, a reset or an undo, read the real booking logs of the record it
        is about and the transactions they book from, so the engine undoes them as sevDesk."""
        segments = path.strip("/").split("/")
        if len(segments) < 2 or not segments[1].isdigit():
            return
        action = segments[2].lower() if len(segments) > 2 else segments[0].lower()
        if action not in _BOOKING_ACTIONS:
            return
        key = (segments[0], int(segments[1]))
        if key in self._written or key[1] >= CREATED_ID_BASE:
            return
        logs = await upstream.booking_logs({key})
        seeder.seed(list(logs))
        for log in logs:
            tx = ref_key(log.get("checkAccountTransaction"))
            if tx is not None and tx not in self._written and tx[1] < CREATED_ID_BASE:
                seeder.seed(await upstream.record(tx))

    def _overlay(
        self,
        engine: FakeSevdesk,
        request: httpx.Request,
        path: str,
        query: Mapping[str, str],
        content: bytes,
    ) -> httpx.Response:
        headers = {k.lower(): v for k, v in request.headers.items()}
        headers["authorization"] = self._token
        outcome = engine.handle(Incoming(request.method, path, dict(query), headers, content))
        return httpx.Response(
            outcome.status, headers=list(outcome.headers), content=outcome.body, request=request
        )


def _made_here(engine: FakeSevdesk, segments: list[str], query: Mapping[str, str]) -> bool:
    """:returns: whether a read names something only the overlay has: an id of the overlay's
    band (in the path or the query) or an export job (or its progress hash) it started."""
    values = [*segments, *query.values()]
    if any(v.isdigit() and int(v) >= CREATED_ID_BASE for v in values):
        return True
    jobs = exports_of(engine.store).jobs
    return any(query.get(key, "").split("_")[-1] in jobs for key in ("jobId", "hash"))


def _refuse_unreadable(unreadable: Mapping[Key, str], method: str, path: str) -> None:
    """:raises UnreadableRecordError: naming the first record the engine could not read."""
    if not unreadable:
        return
    (name, ident), reason = next(iter(unreadable.items()))
    raise UnreadableRecordError(
        f"Rehearsal cannot apply {method} {path}: sevDesk's {name} {ident} has data the "
        f"rehearsal's overlay cannot read ({reason}); nothing was changed, do this step "
        "outside the rehearsal."
    )


def _named(path: str, query: Mapping[str, str], body: Mapping[str, object]) -> list[Key]:
    """:returns: the records a write names: in its path, its query and its body."""
    segments = path.strip("/").split("/")
    keys: list[Key] = []
    if len(segments) > 1 and segments[1].isdigit():
        keys.append((segments[0], int(segments[1])))
    keys.extend(query_refs(query))
    keys.extend(named_refs(dict(body)))
    return list(dict.fromkeys(keys))


def _is_draft(engine: FakeSevdesk, path: str, body: Mapping[str, object]) -> bool:
    """:returns: whether the record a write is about (its path's, or a save's ``id``) is a
    draft in the overlay before the write."""
    segments = path.strip("/").split("/")
    key: Key | None = None
    if len(segments) > 1 and segments[1].isdigit():
        key = (segments[0], int(segments[1]))
    elif segments[-1].startswith("save"):
        inner = body.get(segments[0][:1].lower() + segments[0][1:])
        ident = inner.get("id") if isinstance(inner, dict) else None
        if isinstance(ident, str | int) and str(ident).isdigit():
            key = (segments[0], int(ident))
    table = table_of(engine.store, key[0]) if key is not None else None
    row = table.find(key[1]) if table is not None and key is not None else None
    return row is not None and getattr(row, "status", None) == draft_status(row.OBJECT_NAME)


def _body_of(content: bytes, content_type: str) -> dict[str, object]:
    if "multipart" in content_type:
        return {}
    try:
        return parse_body(content, content_type)
    except FakeError:
        return {}


def _rebuilt(response: httpx.Response, content: bytes, request: httpx.Request) -> httpx.Response:
    headers = [(k, v) for k, v in response.headers.items() if k.lower() not in _DROPPED_HEADERS]
    return httpx.Response(response.status_code, headers=headers, content=content, request=request)


def _json_response(status: int, body: object, request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        status, headers=list(_JSON), content=msgspec.json.encode(body), request=request
    )
