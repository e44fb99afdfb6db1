"""``/upload`` and ``/download``: files between the human's browser and a tool call.

``GET /upload?id=`` shows the upload form of an empty slot of the signed-in person (the holder
of the sevDesk token whose call requested it; another person's slot, of the same account or
not, is answered exactly as one that does not exist, by the store's own check): a file
field inside a drop zone (drag and drop and the file's name, size and type shown before sending
come from ``/web/upload.js``; without it the plain form works), the accepted types, the size
limit and the expiry. Nothing on the page comes from the model. ``POST /upload?id=`` (same
origin, the session's CSRF token, a body within the limit, announced by ``Content-Length``)
fills the slot once; the store checks the content against the declared type and name.

``GET /download?id=`` shows a delivery of the signed-in person with one button; the
``POST`` (same origin, CSRF) answers the file once, as an attachment with a fixed, safe name.
A link alone, passed on by the model or anyone, opens nothing without that person's session.
"""

from __future__ import annotations

from typing import Final, Literal

from sevdesk_mcp.errors import TransferRefusedError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.kit.forms import posted_form
from sevdesk_mcp.http.kit.guard import tokens_match
from sevdesk_mcp.http.kit.lang import LANG_FIELD, Lang, with_lang
from sevdesk_mcp.http.kit.page import e, send_html, when
from sevdesk_mcp.http.web import multipart
from sevdesk_mcp.http.web.guard import (
    here,
    page_lang,
    query_id,
    refuse,
    require_session,
    same_origin,
)
from sevdesk_mcp.http.web.hub import WebHub
from sevdesk_mcp.http.web.render import document, message_page
from sevdesk_mcp.http.web.sessions import Session
from sevdesk_mcp.http.web.text import TEXT
from sevdesk_mcp.safety.transfers import SLOT_GONE, Holder, Record, TransferStore, Upload

FORM_OVERHEAD: Final = 16 * 1024
ACCEPT: Final = ".pdf,.png,.jpg,.jpeg,.xml,application/pdf,image/png,image/jpeg,application/xml"


async def upload_get(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``GET /upload?id=``."""
    lang = page_lang(exchange)
    found = await _shown(hub, exchange, lang, "upload")
    if found is not None:
        await send_html(exchange, 200, _upload_page(*found, lang, here(exchange)))


async def upload_post(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``POST /upload?id=``.

    :raises HttpError: 413 when the body exceeds its announced or real limit (the stack's).
    """
    lang = page_lang(exchange)
    t = TEXT[lang]
    session = await hub.sessions.of(exchange.request.headers)
    store = hub.transfers
    if store is None or session is None or not same_origin(exchange, hub.site):
        await refuse(exchange, lang, session)
        return
    cap = store.limits.max_upload_bytes + FORM_OVERHEAD
    if _announced(exchange) > cap:
        text = t["too_large"].format(size=_mib(store))
        await send_html(exchange, 413, message_page(lang, t["error_title"], text, session))
        return
    body = await exchange.read_body(cap)
    parts = multipart.parse(exchange.request.headers.get("content-type") or "", body)
    csrf = parts.get("csrf") if parts else None
    file = parts.get("file") if parts else None
    given = csrf.data.decode("ascii", "replace") if csrf is not None else None
    if file is None or not tokens_match(session.csrf, given):
        await refuse(exchange, lang, session)
        return
    upload = Upload(file.data, file.content_type, file.filename or "")
    try:
        record = await store.fill(query_id(exchange) or "", _holder(session), upload)
    except TransferRefusedError as exc:
        said = t["upload_gone"] if str(exc) == SLOT_GONE else str(exc)  # in the page's language
        await send_html(exchange, 400, message_page(lang, t["error_title"], said, session))
        return
    done = t["upload_done"].format(name=record.name, type=record.media_type, size=_size(record))
    page = message_page(lang, t["upload_done_title"], done, session, error=False)
    await send_html(exchange, 200, page)


async def download_get(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``GET /download?id=``: the page with the download button."""
    lang = page_lang(exchange)
    found = await _shown(hub, exchange, lang, "download")
    if found is None:
        return
    _, record, session = found
    t = TEXT[lang]
    content = (
        f"<h1>{t['download_title']}</h1>"
        f'<section class="card"><p>{e(t["download_lead"].format(time=when(record.expires, lang)))}'
        f"</p><p><strong>{e(record.name)}</strong> · {e(record.media_type)} · {_size(record)}</p>"
        f'<form method="post" action="/download?id={e(record.id)}">'
        f'<input type="hidden" name="csrf" value="{e(session.csrf)}">'
        f'<input type="hidden" name="{LANG_FIELD}" value="{lang}">'
        f'<div class="actions"><button type="submit" class="primary">'
        f"{e(t['download_button'].format(name=record.name))}</button></div></form></section>"
    )
    page = document(lang, t["download_title"], content, session, here=here(exchange))
    await send_html(exchange, 200, page)


async def download_post(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``POST /download?id=``: the file, once, as an attachment."""
    fields = await posted_form(exchange)
    lang = page_lang(exchange, fields)
    session = await hub.sessions.of(exchange.request.headers)
    store = hub.transfers
    if store is None or session is None or fields is None or not same_origin(exchange, hub.site):
        await refuse(exchange, lang, session)
        return
    if not tokens_match(session.csrf, fields.get("csrf")):
        await refuse(exchange, lang, session)
        return
    found = await store.download(query_id(exchange) or "", _holder(session))
    if found is None:
        await _gone(exchange, lang, session, "download_gone")
        return
    record, data = found
    headers = [
        ("content-type", record.media_type),
        ("content-disposition", f'attachment; filename="{record.name}"'),
    ]
    await exchange.respond(200, headers, data)


async def _shown(
    hub: WebHub, exchange: Exchange, lang: Lang, kind: Literal["upload", "download"]
) -> tuple[TransferStore, Record, Session] | None:
    """:returns: the store, the signed-in person's empty upload slot or delivery named by
    ``?id=`` (as ``kind`` says) and the session; ``None`` once the refusal or the page
    saying it is gone was sent."""
    store = hub.transfers
    if store is None:
        t = TEXT[lang]
        await send_html(exchange, 404, message_page(lang, t["error_title"], t["not_found"]))
        return None
    session = await require_session(exchange, hub.sessions, lang)
    if session is None:
        return None
    look_up = store.slot if kind == "upload" else store.peek
    record = await look_up(query_id(exchange) or "", _holder(session))
    if record is None:
        await _gone(exchange, lang, session, f"{kind}_gone")
        return None
    return store, record, session


def _holder(session: Session) -> Holder:
    """:returns: who the session's pages act for: its person in its account."""
    return Holder(session.account, session.person)


async def _gone(exchange: Exchange, lang: Lang, session: Session, key: str) -> None:
    t = TEXT[lang]
    await send_html(exchange, 404, message_page(lang, t["error_title"], t[key], session))


def _upload_page(
    store: TransferStore, slot: Record, session: Session, lang: Lang, address: str
) -> bytes:
    t = TEXT[lang]
    limits = t["upload_limits"].format(size=_mib(store), time=when(slot.expires, lang))
    too_large = t["too_large"].format(size=_mib(store))
    content = (
        f'<h1>{t["upload_title"]}</h1><p class="lead">{t["upload_lead"]}</p>'
        f'<form class="card" method="post" action="{e(with_lang(f"/upload?id={slot.id}", lang))}" '
        'enctype="multipart/form-data">'
        f'<input type="hidden" name="csrf" value="{e(session.csrf)}">'
        f'<label class="drop" id="drop" for="file" data-max="{store.limits.max_upload_bytes}" '
        f'data-too-large="{e(too_large)}">{t["upload_drop"]}'
        f'<input type="file" id="file" name="file" required accept="{ACCEPT}" '
        'aria-describedby="file-limits file-info"></label>'
        f'<p class="help" id="file-limits">{e(limits)}</p>'
        '<p id="file-info" aria-live="polite"></p>'
        f'<div class="actions"><button type="submit" class="primary">{t["upload_button"]}'
        "</button></div></form>"
    )
    return document(lang, t["upload_title"], content, session, script=True, here=address)


def _announced(exchange: Exchange) -> int:
    length = exchange.request.headers.get("content-length") or "0"
    return int(length.split(",")[0]) if length.split(",")[0].strip().isdigit() else 0


def _mib(store: TransferStore) -> int:
    return store.limits.max_upload_bytes // (1024 * 1024)


def _size(record: Record) -> str:
    return (
        f"{record.size / 1024:.1f} KiB"
        if record.size < 1024 * 1024
        else (f"{record.size / (1024 * 1024):.1f} MiB")
    )
