"""The local approval page (``SEVDESK_CONFIRM=browser`` over stdio and HTTP bearer mode): what
its loopback listener answers, built on the page kit (``http.kit``).

A page app (``pages.PageApp``): a pure function from a :class:`~sevdesk_mcp.http.pages.Request`
to a :class:`~sevdesk_mcp.http.pages.Response`, served by ``pages.PageServer`` on
``127.0.0.1`` in a thread of its own (ADR 0005). The composition root wires it in
(:func:`local_pages`, handed to ``safety.approval_local.SharedPages``); safety never imports
it (ADR 0016). The listener adds :data:`~sevdesk_mcp.http.kit.headers.LOCAL_HEADERS` to every
answer, its own refusals included, and refuses bodies over :data:`MAX_BODY_BYTES` and requests
that repeat a header before the page sees them.

``GET /a/<id>`` shows the preview in full (``kit.approval.preview_html``), the reference code
and two POST forms, Approve and Decline, each carrying the approval's CSRF token; it sets a
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
from sevdesk_mcp.http.kit.forms import cookie, cookie_attributes, form_of
from sevdesk_mcp.http.kit.guard import same_origin, tokens_match
from sevdesk_mcp.http.kit.headers import LOCAL_HEADERS
from sevdesk_mcp.http.kit.page import HTML_TYPE, document, e
from sevdesk_mcp.http.pages import PageServer, Request, Response
from sevdesk_mcp.safety.approval_local import Pages
from sevdesk_mcp.safety.approvals import (
    APPROVAL_TTL_S,
    Approval,
    ApprovalStore,
    MemoryApprovalStore,
)

PATH: Final = re.compile(r"/a/([A-Za-z0-9_-]{43})")
MAX_FORM_FIELDS: Final = 8
MAX_BODY_BYTES: Final = 8 * 1024
COOKIE_PREFIX: Final = "sevdesk_approval_"
LABELS: Final = {"approve": "Approve", "decline": "Decline"}
NOT_FOUND_TEXT: Final = (
    "This approval page is not valid: it may have expired or been decided already, or it never "
    "existed. If the action is still wanted, ask your assistant to run it again."
)
NOT_LOCAL: Final = (
    "The local approval page serves only approvals kept in this process (stdio); approvals in "
    "the shared state are decided in the inbox of the HTTP server."
)
REFUSED_TEXT: Final = (
    "This decision was refused because it did not come from this approval page. Open the "
    "page from the link in the server's log and decide there."
)


def local_pages() -> Pages:
    """:returns: the approval site on a new loopback listener (not started): what the
    composition root hands to ``SharedPages``."""
    site = ApprovalSite()
    return Pages(site, PageServer(site))


class ApprovalSite:
    """Routes page requests to the approval stores attached to it (a ``pages.PageApp``). It
    runs on the page listener's own thread, so it serves only stores of this process
    (:class:`MemoryApprovalStore`), which answer that thread synchronously.

    :cvar headers: sent with every answer (:data:`~sevdesk_mcp.http.kit.headers.LOCAL_HEADERS`).
    :cvar max_body_bytes: the largest body the listener passes on (:data:`MAX_BODY_BYTES`).
    """

    headers: Final = LOCAL_HEADERS
    max_body_bytes: Final = MAX_BODY_BYTES

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stores: weakref.WeakSet[MemoryApprovalStore] = weakref.WeakSet()

    def attach(self, store: ApprovalStore) -> None:
        """Serve the approvals of ``store`` (held weakly).

        :raises ToolError: if ``store`` keeps its approvals elsewhere than in this process.
        """
        if not isinstance(store, MemoryApprovalStore):
            raise ToolError(NOT_LOCAL)
        with self._lock:
            self._stores.add(store)

    def handle(self, request: Request) -> Response:
        """:returns: the answer to ``request``; never raises for anything a client sends."""
        if request.headers.get("host") != request.host:
            return page(403, "Refused", REFUSED_TEXT)
        match = PATH.fullmatch(request.target)
        if match is None:
            return page(404, "Not found", NOT_FOUND_TEXT)
        if request.method == "GET":
            return self._show(match[1])
        if request.method == "POST":
            return self._decide(match[1], request)
        return page(405, "Not allowed", NOT_FOUND_TEXT, (("Allow", "GET, POST"),))

    def _find(self, approval_id: str) -> tuple[MemoryApprovalStore, Approval] | None:
        with self._lock:
            stores = list(self._stores)
        for store in stores:
            approval = store.view_now(approval_id)
            if approval is not None:
                return store, approval
        return None

    def _show(self, approval_id: str) -> Response:
        found = self._find(approval_id)
        if found is None:
            return page(404, "Not found", NOT_FOUND_TEXT)
        approval = found[1]
        attributes = cookie_attributes(int(APPROVAL_TTL_S), https=False)
        set_cookie = f"{cookie_name(approval)}={approval.cookie}; {attributes}"
        body = approval_html(approval)
        return Response(200, body, (("Content-Type", HTML_TYPE), ("Set-Cookie", set_cookie)))

    def _decide(self, approval_id: str, request: Request) -> Response:
        origins, sites = request.get_all("origin"), request.get_all("sec-fetch-site")
        if not same_origin(origins, sites, f"http://{request.host}"):
            return page(403, "Refused", REFUSED_TEXT)
        found = self._find(approval_id)
        if found is None:
            return page(404, "Not found", NOT_FOUND_TEXT)
        store, approval = found
        decision = _checked_decision(request, approval)
        if decision is None:
            return page(403, "Refused", REFUSED_TEXT)
        decided = store.decide_now(approval_id, approved=decision)
        if decided is None:
            return page(404, "Not found", NOT_FOUND_TEXT)
        return page(200, *_result_text(decided))


def cookie_name(approval: Approval) -> str:
    """:returns: the name of the approval's cookie (from its non-secret reference)."""
    return COOKIE_PREFIX + approval.reference.replace("-", "")


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


def _result_text(approval: Approval) -> tuple[str, str]:
    if approval.status == "approved":
        return "Approved", (
            f"Approved (reference {approval.reference}). Go back to your assistant: the action "
            "runs when it calls the tool again with the same arguments, before "
            f"{approval.expires_at}. You can close this page."
        )
    return "Declined", (
        f"Declined (reference {approval.reference}). Nothing will be changed. You can close "
        "this page."
    )


def page(status: int, title: str, text: str, extra: tuple[tuple[str, str], ...] = ()) -> Response:
    """:returns: a small page with a title and one paragraph, both escaped."""
    body = document("en", title, f"<h1>{e(title)}</h1><p>{e(text)}</p>")
    return Response(status, body, (("Content-Type", HTML_TYPE), *extra))


def approval_html(approval: Approval) -> bytes:
    """:returns: the approval page: reference, preview and the two decision forms."""
    changed = (
        "<p><strong>The record changed since the assistant first asked; the earlier request "
        f"is void. Changed: {e(', '.join(approval.changed))}. Please review it again."
        "</strong></p>"
        if approval.changed
        else ""
    )
    forms = decision_forms(f"/a/{approval.id}", (("csrf", approval.csrf),), LABELS)
    content = (
        "<h1>Approve a sevDesk action?</h1>"
        f'<p>Reference <span class="ref">{e(approval.reference)}</span>: check that your '
        "assistant named the same reference.</p>"
        f"<p>Tool <code>{e(approval.binding.tool)}</code>; this request expires at "
        f"{e(approval.expires_at)}.</p>{changed}{preview_html(approval.preview)}"
        f'<div class="actions">{forms}</div>'
    )
    return document("en", "Approve a sevDesk action", content)
