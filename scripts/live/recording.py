"""Recording the endpoints the product reads: one sanitized JSON file per request.

Each list is read with a small ``limit``, then one object of it by id (and the id's
sub-resources the product reads, such as an invoice's positions). Every file holds
``provenance`` (when, from which API root, bookkeeping system, X-Version, tool version), the
``request`` (method, path, query), the ``status``, the headers that matter and the ``body``,
sanitized by one :class:`~live.sanitize.Sanitizer` for the whole recording. Nothing is written
unless :func:`~live.sanitize.scan` finds nothing personal in any file.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final
from zoneinfo import ZoneInfo

from live.sanitize import Finding, Sanitizer, scan
from sevdesk_mcp import __version__
from sevdesk_mcp.jsontypes import JsonObject, JsonValue

if TYPE_CHECKING:  # the session imports this module for its allow-list
    from live.session import Answer, LiveSession

BERLIN: Final = ZoneInfo("Europe/Berlin")
VERSION_PATH: Final = "/Tools/bookkeepingSystemVersion"
X_VERSION: Final = "default (no X-Version header sent)"
DEFAULT_LIMIT: Final = 3


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A list (or single answer) the product reads, and what is read of its first object.

    :param by_id: paths with ``{id}``, read for the first object of the list.
    """

    name: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    by_id: tuple[str, ...] = ()
    paged: bool = True


def _listed(name: str, *extra: str, **query: str) -> Endpoint:
    return Endpoint(name, f"/{name}", dict(query), (f"/{name}/{{id}}", *extra))


ENDPOINTS: Final = (
    Endpoint("SevClient", "/SevClient", paged=False),
    Endpoint("SevUser", "/SevUser", paged=False),
    Endpoint("bookkeepingSystemVersion", VERSION_PATH, paged=False),
    _listed("Contact", depth="1", countAll="true"),
    _listed("ContactAddress"),
    _listed("CommunicationWay"),
    _listed("Part", "/Part/{id}/getStock"),
    _listed("Invoice", "/Invoice/{id}/getPositions", countAll="true"),
    Endpoint("InvoicePos", "/InvoicePos"),
    _listed("CreditNote"),
    Endpoint("CreditNotePos", "/CreditNotePos"),
    _listed("Order"),
    _listed("Voucher", countAll="true"),
    Endpoint("VoucherPos", "/VoucherPos"),
    _listed("CheckAccount"),
    _listed("CheckAccountTransaction", countAll="true"),
    Endpoint("CheckAccountTransactionLog", "/CheckAccountTransactionLog"),
    _listed("Tag"),
    Endpoint("TaxRule", "/TaxRule"),
    _listed("AccountDatev"),
    Endpoint("Unity", "/Unity"),
    Endpoint("StaticCountry", "/StaticCountry"),
    Endpoint("PaymentMethod", "/PaymentMethod"),
)
NAMES: Final = frozenset(e.name for e in ENDPOINTS)


class UnknownEndpointError(Exception):
    """``--endpoints`` named an endpoint the recorder does not know."""


def chosen(names: Iterable[str] | None) -> tuple[Endpoint, ...]:
    """:returns: the endpoints called ``names`` (all of them for ``None``), in recording order.

    :raises UnknownEndpointError: for a name that is not one of :data:`ENDPOINTS`.
    """
    if names is None:
        return ENDPOINTS
    wanted = {n.strip() for n in names if n.strip()}
    unknown = sorted(wanted - NAMES)
    if unknown:
        raise UnknownEndpointError(
            f"Unknown endpoint {', '.join(unknown)}; choose from: {', '.join(sorted(NAMES))}."
        )
    return tuple(e for e in ENDPOINTS if e.name in wanted)


@dataclass(slots=True)
class Recording:
    """The files of one recording, by file name, before and after sanitizing."""

    files: dict[str, JsonObject]
    sanitizer: Sanitizer

    def findings(self) -> list[tuple[str, Finding]]:
        """:returns: what still looks personal, with the file it is in (empty when clean)."""
        originals, secrets = self.sanitizer.originals, self.sanitizer.secrets
        return [
            (name, found)
            for name, record in self.files.items()
            for found in scan(record, originals, secrets)
        ]

    def write(self, out_dir: Path, *, replace: bool = False) -> list[Path]:
        """Write one JSON file per request into ``out_dir`` (created if missing).

        :param replace: remove the folder's ``*.json`` recordings first (nothing else);
            without it a folder that holds anything is refused.
        :returns: the files written.
        :raises OutputFolderError: for a folder that is not empty, without ``replace``.
        :raises OSError: when the folder or a file cannot be written.
        """
        _prepare(out_dir, replace=replace)
        written = []
        for name, record in self.files.items():
            path = out_dir / name
            text = json.dumps(record, ensure_ascii=False, indent=1)
            path.write_text(text + "\n", encoding="utf-8")
            written.append(path)
        return written


class OutputFolderError(Exception):
    """The output folder already holds files and ``--replace`` was not given."""


def _prepare(out_dir: Path, *, replace: bool) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    if replace:
        for old in out_dir.glob("*.json"):
            old.unlink()
    elif any(out_dir.iterdir()):
        raise OutputFolderError(
            f"{out_dir} is not empty: choose an empty folder, or pass --replace to remove its "
            "*.json recordings first."
        )


def record(
    session: LiveSession,
    endpoints: Sequence[Endpoint] = ENDPOINTS,
    limit: int = DEFAULT_LIMIT,
    now: dt.datetime | None = None,
) -> Recording:
    """Read ``endpoints`` and sanitize every answer.

    :returns: the sanitized recording (not yet scanned or written).
    :raises ReadOnlyRefusedError: never for these endpoints; for a GET that changes data.
    :raises httpx.HTTPError: when sevDesk cannot be reached.
    """
    sanitizer = Sanitizer(secrets=[session.settings.token])
    provenance = _provenance(session, now or dt.datetime.now(BERLIN))
    files: dict[str, JsonObject] = {}
    for path, query, answer in _exchanges(session, endpoints, limit):
        files[unique(file_name(path, query), files)] = {
            "provenance": provenance,
            "request": {"method": "GET", "path": path, "query": _json(query)},
            "status": answer.status,
            "headers": _json(answer.headers),
            "body": sanitizer.sanitize(answer.body),
        }
    return Recording(files, sanitizer)


def _json(strings: dict[str, str]) -> JsonObject:
    return {key: value for key, value in strings.items()}


def _exchanges(
    session: LiveSession, endpoints: Sequence[Endpoint], limit: int
) -> Iterator[tuple[str, dict[str, str], Answer]]:
    for endpoint in endpoints:
        query = {**({"limit": str(limit)} if endpoint.paged else {}), **endpoint.query}
        answer = session.get(endpoint.path, query)
        yield endpoint.path, query, answer
        first = first_id(answer.body) if answer.status == 200 else None
        for template in endpoint.by_id if first is not None else ():
            path = template.format(id=first)
            yield path, {}, session.get(path)


def first_id(body: JsonValue) -> int | None:
    """:returns: the id of the first object of a list answer, if there is one."""
    objects = body.get("objects") if isinstance(body, dict) else None
    first = objects[0] if isinstance(objects, list) and objects else None
    ident = first.get("id") if isinstance(first, dict) else None
    text = str(ident) if isinstance(ident, str | int) and not isinstance(ident, bool) else ""
    return int(text) if text.isdigit() and int(text) > 0 else None


def file_name(path: str, query: dict[str, str]) -> str:
    """:returns: the file of one request: its path in words, ids as ``id`` (``invoice-id-
    getpositions.json``)."""
    words = [("id" if part.isdigit() else part.lower()) for part in path.strip("/").split("/")]
    return re.sub(r"[^a-z0-9-]", "", "-".join(words)) + ".json"


def unique(name: str, taken: Iterable[str]) -> str:
    """:returns: ``name``, or ``name`` with ``-2``, ``-3``... before ``.json`` if it is taken."""
    used = set(taken)
    stem, n, found = name.removesuffix(".json"), 1, name
    while found in used:
        n += 1
        found = f"{stem}-{n}.json"
    return found


def _provenance(session: LiveSession, now: dt.datetime) -> JsonObject:
    answer = session.get(VERSION_PATH)
    objects = answer.body.get("objects") if isinstance(answer.body, dict) else None
    version = objects.get("version") if isinstance(objects, dict) else None
    return {
        "recorded_at": now.astimezone(BERLIN).isoformat(timespec="seconds"),
        "api_root": session.settings.url,
        "x_version": X_VERSION,
        "bookkeeping_system": version if isinstance(version, str) else None,
        "tool_version": __version__,
        "recorder": "scripts/record_fixtures.py",
        "sanitized": True,
    }
