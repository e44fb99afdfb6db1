"""``/approvals``: a person's inbox (``SEVDESK_CONFIRM=browser`` over HTTP).

``GET`` lists, for the signed-in person only (the holder of the sevDesk token the session was
started with, :mod:`~sevdesk_mcp.http.web.persons`), every approval they asked for that waits
for a decision (from any of their grants: the reference code, the action, who asked through
which client and connection, when, its expiry and the full preview, rendered as on the local
page) and their assistants' upload requests; a colleague of the same account sees none of
them. Each approval has two POST forms. ``POST`` decides one approval when the request is
same-origin, carries the session's CSRF token, and the approval waits and is the session's
person's (checked by the store, :meth:`~sevdesk_mcp.safety.approvals.ApprovalStore.decide`);
anything else is refused, and an approval of another person or account is answered exactly
as one that does not exist.
"""

from __future__ import annotations

import re
from typing import Final

from sevdesk_mcp.errors import FormError
from sevdesk_mcp.http.auth import oauth_grant
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.kit.approval import decision_forms, decision_of, preview_html
from sevdesk_mcp.http.kit.forms import params, posted_form
from sevdesk_mcp.http.kit.guard import tokens_match
from sevdesk_mcp.http.kit.lang import LANG_FIELD, Lang, with_lang
from sevdesk_mcp.http.kit.page import e, see_other, send_html, when
from sevdesk_mcp.http.web.guard import here, page_lang, refuse, require_session, same_origin
from sevdesk_mcp.http.web.hub import WebHub
from sevdesk_mcp.http.web.render import document, message_page
from sevdesk_mcp.http.web.sessions import Session
from sevdesk_mcp.http.web.text import TEXT
from sevdesk_mcp.safety.approvals import Approval, ApprovalStore
from sevdesk_mcp.safety.fence import clean
from sevdesk_mcp.safety.transfers import Holder

_APPROVAL_ID: Final = re.compile(r"[A-Za-z0-9_-]{43}")
_DONE: Final = re.compile(r"(approved|declined)-([2-9A-Z]{2}-[2-9A-Z]{3})")
MAX_CLIENT_CHARS: Final = 80
GRANT_CHARS: Final = 10  # the short form of a grant id (``g_`` and 8 more)


async def inbox_get(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``GET /approvals``."""
    lang = page_lang(exchange)
    session = await require_session(exchange, hub.sessions, lang)
    if session is None:
        return
    t = TEXT[lang]
    parts = [
        f"<h1>{t['inbox_title']}</h1>",
        f'<p class="lead">{e(t["inbox_lead"].format(account=session.account_name))}</p>',
        _done_notice(exchange.request.query, lang),
    ]
    approvals = await _pending(hub, session)
    if approvals:
        parts.append(f"<p>{t['inbox_what']}</p>")
    else:
        parts.append(f'<p class="card">{t["inbox_empty"]}</p>')
    parts += [_card(a, session, lang) for a in approvals]
    parts.append(await _uploads(hub, session, lang))
    page = document(lang, t["inbox_title"], "".join(parts), session, here=here(exchange))
    await send_html(exchange, 200, page)


async def inbox_post(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``POST /approvals``: one decision."""
    fields = await posted_form(exchange)
    lang = page_lang(exchange, fields)
    session = await hub.sessions.of(exchange.request.headers)
    if fields is None or session is None or not same_origin(exchange, hub.site):
        await refuse(exchange, lang, session)
        return
    if not tokens_match(session.csrf, fields.get("csrf")):
        await refuse(exchange, lang, session)
        return
    decision = decision_of(fields)
    found = await _find(hub, fields.get("id", ""), session)
    decided = None
    if decision is not None and found is not None:
        store, approval = found
        decided = await store.decide(approval.id, session.person, approved=decision)
    if decided is None:
        t = TEXT[lang]
        await send_html(exchange, 404, message_page(lang, t["error_title"], t["gone"], session))
        return
    done = f"/approvals?done={decided.status}-{decided.reference}"
    await see_other(exchange, with_lang(done, lang))


async def _pending(hub: WebHub, session: Session) -> list[Approval]:
    """:returns: the approvals waiting for the session's person, of its account, oldest first."""
    found: list[Approval] = []
    for store in hub.approvals.stores():
        found += await store.waiting(session.person)
    return sorted((a for a in found if a.binding.account == session.account), key=_expiry)


async def _find(
    hub: WebHub, approval_id: str, session: Session
) -> tuple[ApprovalStore, Approval] | None:
    """:returns: the store and the waiting approval ``approval_id`` of the session's person
    and account; ``None`` for any other, as for an unknown id."""
    if not _APPROVAL_ID.fullmatch(approval_id):
        return None
    for store in hub.approvals.stores():
        approval = await store.view(approval_id, session.person)
        if approval is not None and approval.binding.account == session.account:
            return store, approval
    return None


def _expiry(approval: Approval) -> float:
    return approval.expires


def _card(approval: Approval, session: Session, lang: Lang) -> str:
    t = TEXT[lang]
    changed = (
        f'<p class="error">{e(t["changed"].format(what=", ".join(approval.changed)))}</p>'
        if approval.changed
        else ""
    )
    hidden = (("csrf", session.csrf), ("id", approval.id), (LANG_FIELD, lang))
    forms = decision_forms("/approvals", hidden, t, f"ref-{approval.reference}")
    return (
        f'<section class="card" aria-labelledby="ref-{e(approval.reference)}">'
        f'<div class="meta"><span id="ref-{e(approval.reference)}">{t["reference"]} '
        f'<span class="ref">{e(approval.reference)}</span></span>'
        f"<span>{t['tool']} <code>{e(approval.binding.tool)}</code></span>"
        f"{_asked(approval, lang)}"
        f"<span>{e(t['expires'].format(time=when(approval.expires, lang)))}</span></div>"
        f"{changed}{preview_html(approval.preview, lang)}"
        f'<div class="actions">{forms}</div></section>'
    )


def _asked(approval: Approval, lang: Lang) -> str:
    """:returns: who asked for ``approval`` (the client's name and the grant's short id) and
    when, as the card's meta items."""
    t = TEXT[lang]
    client = _shown(approval.binding.client)
    grant = (oauth_grant(approval.binding.principal) or "")[:GRANT_CHARS]
    who = f"{t['asked_by']} <strong>{e(client)}</strong>" if client else ""
    if grant:
        who += f"{' · ' if who else ''}{t['connection']} <code>{e(grant)}</code>"
    asked = f"<span>{e(t['asked'].format(time=when(approval.asked, lang)))}</span>"
    return (f"<span>{who}</span>" if who else "") + (asked if approval.asked else "")


def _shown(text: str) -> str:
    """:returns: ``text`` (a client's name, chosen by the client) without the characters a
    human would not see (:func:`~sevdesk_mcp.safety.fence.clean`), at most
    :data:`MAX_CLIENT_CHARS` long."""
    visible = clean(text)
    return visible if len(visible) <= MAX_CLIENT_CHARS else visible[: MAX_CLIENT_CHARS - 1] + "…"


async def _uploads(hub: WebHub, session: Session, lang: Lang) -> str:
    if hub.transfers is None:
        return ""
    slots = await hub.transfers.pending_uploads(Holder(session.account, session.person))
    if not slots:
        return ""
    t = TEXT[lang]
    items = "".join(
        f'<li><a href="{e(with_lang(f"/upload?id={s.id}", lang))}">{t["upload_open"]}</a> · '
        f"{e(t['expires'].format(time=when(s.expires, lang)))}</li>"
        for s in slots
    )
    title = f"<h2>{t['uploads_title']}</h2>"
    return f'<section class="card">{title}<ul class="plain">{items}</ul></section>'


def _done_notice(query: str, lang: Lang) -> str:
    """:returns: the notice of a decision just made (``?done=approved-7K-M3QX``), or ``""``."""
    try:
        found = params(query)
    except FormError:
        return ""
    match = _DONE.fullmatch(found.get("done", ""))
    if match is None:
        return ""
    text = TEXT[lang][match[1]].format(ref=match[2])
    return f'<p class="notice" role="status">{e(text)}</p>'
