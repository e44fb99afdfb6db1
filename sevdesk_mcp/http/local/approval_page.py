"""The local approval page (``SEVDESK_CONFIRM=browser`` over stdio and HTTP bearer mode): what
its loopback listener answers, built on the page kit (``http.kit``).

A page app (``pages.PageApp``): a pure function from a :class:`~sevdesk_mcp.http.pages.Request`
to a :class:`~sevdesk_mcp.http.pages.Response`, served by ``pages.PageServer`` on
``127.0.0.1`` in a thread of its own (ADR 0005). The composition root wires it in
(:func:`local_pages`, handed to ``safety.approval_local.SharedPages``); safety never imports
it (ADR 0016). The listener adds :data:`~sevdesk_mcp.http.kit.headers.LOCAL_HEADERS` to every
answer, its own refusals included, and refuses bodies over :data:`MAX_BODY_BYTES` and requests
that repeat a header before the page sees them.

Every page is in German or English: the link's ``?lang=`` (a form's ``lang`` field), else the
browser's ``Accept-Language``, else the configured default (``SEVDESK_LANGUAGE``, handed in by
the composition root); each links to itself in the other language.

``GET /a/<id>`` shows the sevDesk account's name (when the composition root gave it), one
sentence of what approving does and whether it can be undone, the reference code, the expiry
(Europe/Berlin), the preview in full (``kit.approval.preview_html``, in the page's language) and
two POST forms, Approve and Decline, each carrying the approval's CSRF token; it sets a
``SameSite=Strict; HttpOnly; Path=/`` cookie bound to the approval. ``POST /a/<id>`` decides only
when every check passes:

- ``Host`` is the server's own ``127.0.0.1:<port>`` (checked for every request, against DNS
  rebinding);
- ``Origin`` is the server's own origin, or absent with ``Sec-Fetch-Site: same-origin``; never
  ``Origin: null``; a ``Sec-Fetch-Site`` other than ``same-origin`` is refused
  (``kit.guard.same_origin``);
- the approval's cookie (sent once) and CSRF token match (compared in constant time).

Unknown, expired and decided ids get the same 404 page, which says nothing about which it was.
Every answer carries the kit's CSP for this listener (no scripts; the one stylesheet allowed by
its hash; forms to this origin only), ``X-Frame-Options: DENY``, ``Referrer-Policy:
same-origin``, ``Cache-Control: no-store`` and ``nosniff``.
"""

from __future__ import annotations

import re
import threading
import weakref
from typing import Final

from sevdesk_mcp.errors import FormError, ToolError
from sevdesk_mcp.http.kit.approval import decision_forms, decision_of, preview_html
from sevdesk_mcp.http.kit.forms import cookie, cookie_attributes, form_of, params
from sevdesk_mcp.http.kit.guard import same_origin, tokens_match
from sevdesk_mcp.http.kit.headers import LOCAL_HEADERS
from sevdesk_mcp.http.kit.lang import LANG_FIELD, Lang, other_lang, pick_lang
from sevdesk_mcp.http.kit.page import HTML_TYPE, SWITCH, document, e, switch_link, when
from sevdesk_mcp.http.pages import PageServer, Request, Response
from sevdesk_mcp.safety.approval_local import Pages
from sevdesk_mcp.safety.approvals import (
    APPROVAL_TTL_S,
    Approval,
    ApprovalStore,
    MemoryApprovalStore,
)
from sevdesk_mcp.safety.fence import clean
from sevdesk_mcp.safety.preview import REHEARSAL, REHEARSAL_TITLE, Words

PATH: Final = re.compile(r"/a/([A-Za-z0-9_-]{43})")
MAX_FORM_FIELDS: Final = 8
MAX_BODY_BYTES: Final = 8 * 1024
COOKIE_PREFIX: Final = "sevdesk_approval_"
TEXT: Final[dict[Lang, dict[str, str]]] = {
    "en": {
        "title": "Approve a sevDesk action?",
        "approve": "Approve",
        "decline": "Decline",
        "company": "sevDesk account: {company}",
        "reference": "Reference {ref}: check that your assistant named the same reference.",
        "expires": "This request expires on {time}.",
        "tool": "Action",
        "what": "If you approve, your assistant does exactly what this page shows when it calls "
        "the action again. If you decline, nothing is changed.",
        "final": "Approving is binding: this cannot be undone.",
        "changed": "The record changed since the assistant first asked; the earlier request is "
        "void. Changed: {what}. Please review it again.",
        "approved_title": "Approved",
        "approved": "Approved (reference {ref}). Go back to your assistant: the action runs when "
        "it calls the tool again with the same arguments, before {time}. You can close this page.",
        "declined_title": "Declined",
        "declined": "Declined (reference {ref}). Nothing will be changed. You can close this page.",
        "not_found_title": "Not found",
        "not_found": "This approval page is not valid: it may have expired or been decided "
        "already, or it never existed. If the action is still wanted, ask your assistant to run "
        "it again.",
        "refused_title": "Refused",
        "refused": "This decision was refused because it did not come from this approval page. "
        "Open the page again from its link and decide there.",
        "not_allowed_title": "Not allowed",
    },
    "de": {
        "title": "sevDesk-Aktion freigeben?",
        "approve": "Freigeben",
        "decline": "Ablehnen",
        "company": "sevDesk-Konto: {company}",
        "reference": "Referenz {ref}: Prüfen Sie, ob Ihr Assistent dieselbe Referenz genannt hat.",
        "expires": "Diese Anfrage gilt bis {time}.",
        "tool": "Aktion",
        "what": "Wenn Sie freigeben, führt Ihr Assistent genau das aus, was diese Seite zeigt, "
        "sobald er die Aktion erneut aufruft. Wenn Sie ablehnen, wird nichts geändert.",
        "final": "Die Freigabe ist verbindlich: Das lässt sich nicht rückgängig machen.",
        "changed": "Die Daten haben sich geändert, seit Ihr Assistent zuerst gefragt hat; die "
        "frühere Anfrage ist ungültig. Bitte prüfen Sie erneut.",
        "approved_title": "Freigegeben",
        "approved": "Freigegeben (Referenz {ref}). Zurück zu Ihrem Assistenten: Die Aktion läuft, "
        "wenn er das Werkzeug vor {time} erneut mit denselben Angaben aufruft. Sie können diese "
        "Seite schließen.",
        "declined_title": "Abgelehnt",
        "declined": "Abgelehnt (Referenz {ref}). Es wird nichts geändert. Sie können diese Seite "
        "schließen.",
        "not_found_title": "Nicht gefunden",
        "not_found": "Diese Freigabeseite ist nicht gültig: Sie ist abgelaufen, wurde schon "
        "entschieden oder hat nie existiert. Wenn die Aktion noch gewünscht ist, bitten Sie Ihren "
        "Assistenten, sie erneut auszuführen.",
        "refused_title": "Abgewiesen",
        "refused": "Diese Entscheidung wurde abgewiesen, weil sie nicht von dieser Freigabeseite "
        "kam. Öffnen Sie die Seite erneut über ihren Link und entscheiden Sie dort.",
        "not_allowed_title": "Nicht erlaubt",
    },
}
"""The page's words; ``{time}`` is a moment in Europe/Berlin with its zone named."""
NOT_LOCAL: Final = (
    "The local approval page serves only approvals kept in this process (stdio); approvals in "
    "the shared state are decided in the inbox of the HTTP server."
)


def local_pages(lang: Lang | None = None, company: str = "") -> Pages:
    """:returns: the approval site on a new loopback listener (not started): what the
    composition root hands to ``SharedPages``.

    :param lang: the pages' language where neither the link nor the browser names one (else
        the kit's configured default, ``kit.lang.default_lang``).
    :param company: the name of the sevDesk account the approvals are for, shown at the top
        (one account serves the process where this page is used: stdio and bearer mode).
    """
    site = ApprovalSite(lang, company)
    return Pages(site, PageServer(site))


class ApprovalSite:
    """Routes page requests to the approval stores attached to it (a ``pages.PageApp``). It
    runs on the page listener's own thread, so it serves only stores of this process
    (:class:`MemoryApprovalStore`), which answer that thread synchronously.

    :param lang: the default language (see :func:`local_pages`).
    :param company: the account's name shown at the top.
    :cvar headers: sent with every answer (:data:`~sevdesk_mcp.http.kit.headers.LOCAL_HEADERS`).
    :cvar max_body_bytes: the largest body the listener passes on (:data:`MAX_BODY_BYTES`).
    """

    headers: Final = LOCAL_HEADERS
    max_body_bytes: Final = MAX_BODY_BYTES

    def __init__(self, lang: Lang | None = None, company: str = "") -> None:
        self._lock = threading.Lock()
        self._stores: weakref.WeakSet[MemoryApprovalStore] = weakref.WeakSet()
        self._lang = lang
        self._company = company

    def attach(self, store: ApprovalStore) -> None:
        """Serve the approvals of ``store`` (held weakly).

        :raises ToolError: if ``store`` keeps its approvals elsewhere than in this process.
        """
        if not isinstance(store, MemoryApprovalStore):
            raise ToolError(NOT_LOCAL)
        with self._lock:
            self._stores.add(store)

    @property
    def company(self) -> str:
        """:returns: the account's name shown at the top (empty: not known)."""
        return self._company

    def handle(self, request: Request) -> Response:
        """:returns: the answer to ``request``; never raises for anything a client sends."""
        path, _, query = request.target.partition("?")
        lang = self._lang_of(request, query)
        if request.headers.get("host") != request.host:
            return page(403, "refused", lang)
        match = PATH.fullmatch(path)
        if match is None:
            return page(404, "not_found", lang)
        if request.method == "GET":
            return self._show(match[1], lang)
        if request.method == "POST":
            return self._decide(match[1], request, lang)
        return page(405, "not_found", lang, (("Allow", "GET, POST"),), "not_allowed_title")

    def _lang_of(self, request: Request, query: str) -> Lang:
        """:returns: the page's language: the query's (GET) or form's (POST) ``lang``, else the
        browser's preference, else the site's default."""
        try:
            asked = params(query).get(LANG_FIELD) if query else None
        except FormError:
            asked = None
        if request.method == "POST" and asked is None:
            asked = _posted_lang(request)
        return pick_lang(asked, request.headers.get("accept-language"), self._lang)

    def _find(self, approval_id: str) -> tuple[MemoryApprovalStore, Approval] | None:
        with self._lock:
            stores = list(self._stores)
        for store in stores:
            approval = store.view_now(approval_id)
            if approval is not None:
                return store, approval
        return None

    def _show(self, approval_id: str, lang: Lang) -> Response:
        found = self._find(approval_id)
        if found is None:
            return page(404, "not_found", lang)
        approval = found[1]
        attributes = cookie_attributes(int(APPROVAL_TTL_S), https=False)
        set_cookie = f"{cookie_name(approval)}={approval.cookie}; {attributes}"
        body = approval_html(approval, lang, self.company)
        return Response(200, body, (("Content-Type", HTML_TYPE), ("Set-Cookie", set_cookie)))

    def _decide(self, approval_id: str, request: Request, lang: Lang) -> Response:
        origins, sites = request.get_all("origin"), request.get_all("sec-fetch-site")
        if not same_origin(origins, sites, f"http://{request.host}"):
            return page(403, "refused", lang)
        found = self._find(approval_id)
        if found is None:
            return page(404, "not_found", lang)
        store, approval = found
        decision = _checked_decision(request, approval)
        if decision is None:
            return page(403, "refused", lang)
        decided = store.decide_now(approval_id, approved=decision)
        if decided is None:
            return page(404, "not_found", lang)
        return _result_page(decided, lang)


def cookie_name(approval: Approval) -> str:
    """:returns: the name of the approval's cookie (from its non-secret reference)."""
    return COOKIE_PREFIX + approval.reference.replace("-", "")


def _posted_lang(request: Request) -> str | None:
    """:returns: the ``lang`` field of a posted form, if the form can be read."""
    try:
        fields = form_of(request.headers.get("content-type"), request.body, MAX_FORM_FIELDS)
    except FormError:
        return None
    return fields.get(LANG_FIELD)


def _checked_decision(request: Request, approval: Approval) -> bool | None:
    """:returns: ``True`` to approve, ``False`` to decline, ``None`` if a check fails."""
    if not tokens_match(approval.cookie, cookie(request.get_all("cookie"), cookie_name(approval))):
        return None
    try:
        fields = form_of(request.headers.get("content-type"), request.body, MAX_FORM_FIELDS)
    except FormError:
        return None
    if not tokens_match(approval.csrf, fields.get("csrf")):
        return None
    return decision_of(fields)


def _result_page(approval: Approval, lang: Lang) -> Response:
    """:returns: the page after a decision, its words in the other language too (folded: the
    answer to a POST has no address to switch on)."""
    key = "approved" if approval.status == "approved" else "declined"
    t, other = TEXT[lang], other_lang(lang)
    said = {
        each: TEXT[each][key].format(ref=approval.reference, time=when(approval.expires, each))
        for each in (lang, other)
    }
    content = (
        f'<h1>{t[key + "_title"]}</h1><p class="notice" role="status">{e(said[lang])}</p>'
        f'<details class="lang" lang="{other}"><summary>{SWITCH[lang]}</summary>'
        f"<p>{e(said[other])}</p></details>"
    )
    return Response(200, document(lang, t[key + "_title"], content), (("Content-Type", HTML_TYPE),))


def page(
    status: int,
    key: str,
    lang: Lang,
    extra: tuple[tuple[str, str], ...] = (),
    title_key: str | None = None,
) -> Response:
    """:returns: a small page in ``lang``: the title and paragraph of ``key`` (``TEXT``) and
    the switch to the other language. It names no path: unknown, expired and decided
    approvals get the very same page."""
    t = TEXT[lang]
    title = t[title_key or f"{key}_title"]
    content = f"{_top('/', lang)}<h1>{e(title)}</h1><p>{e(t[key])}</p>"
    return Response(status, document(lang, title, content), (("Content-Type", HTML_TYPE), *extra))


def _top(path: str, lang: Lang, company: str = "") -> str:
    """:returns: the line above a page's heading: the account's name and the language switch."""
    name = f'<p class="company">{e(TEXT[lang]["company"].format(company=clean(company)))}</p>'
    shown = name if clean(company) else "<span></span>"
    switch = switch_link(path, lang)
    return f'<div class="pagetop">{shown}{switch}</div>'


def approval_html(approval: Approval, lang: Lang = "en", company: str = "") -> bytes:
    """:returns: the approval page in ``lang``: the account's name, what approving does and
    whether it can be undone, the reference and expiry, the preview and the two forms. In a
    rehearsal the title says so first (REHEARSAL, PROBELAUF), in the tab and the heading."""
    t = TEXT[lang]
    title = t["title"]
    if REHEARSAL in approval.preview.warnings:
        title = f"{Words(lang).text(REHEARSAL_TITLE)}: {title}"
    changed = (
        f'<p class="error" role="alert">{e(t["changed"].format(what=", ".join(approval.changed)))}'
        "</p>"
        if approval.changed
        else ""
    )
    final = f" <strong>{t['final']}</strong>" if approval.preview.irreversible else ""
    hidden = (("csrf", approval.csrf), (LANG_FIELD, lang))
    forms = decision_forms(f"/a/{approval.id}", hidden, t, "reference")
    reference = t["reference"].format(ref=f'<span class="ref">{e(approval.reference)}</span>')
    content = (
        f"{_top(f'/a/{approval.id}', lang, company)}<h1>{title}</h1>"
        f'<p class="lead">{t["what"]}{final}</p>{changed}'
        f'<section class="card" aria-labelledby="reference">'
        f'<div class="meta"><span id="reference">{reference}</span>'
        f"<span>{e(t['expires'].format(time=when(approval.expires, lang)))}</span>"
        f"<span>{t['tool']} <code>{e(approval.binding.tool)}</code></span></div>"
        f"{preview_html(approval.preview, lang)}"
        f'<div class="actions">{forms}</div></section>'
    )
    return document(lang, title, content)
