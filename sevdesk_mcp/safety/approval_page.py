"""The approval page: what the local page listener answers (``SEVDESK_CONFIRM=browser``).

A pure function from a :class:`Request` to a :class:`Response`, with no sockets: the HTTP stack
serves it (``approval_local`` says how it is wired). The listener adds :data:`SECURITY_HEADERS`
to every answer, its own refusals included, and refuses bodies over :data:`MAX_BODY_BYTES` and
requests that repeat a header before the page sees them.

``GET /a/<id>`` shows the preview in full (warnings first, fact values with their line breaks,
capped only at 12,000 characters with a marker, everything HTML-escaped), the reference code
and two POST forms, Approve and Decline, each carrying the approval's CSRF token; it sets a
``SameSite=Strict; HttpOnly; Path=/`` cookie bound to the approval. ``POST /a/<id>`` decides only
when every check passes:

- ``Host`` is the server's own ``127.0.0.1:<port>`` (checked for every request, against DNS
  rebinding);
- ``Origin`` is the server's own origin, or absent with ``Sec-Fetch-Site: same-origin``; never
  ``Origin: null``; a ``Sec-Fetch-Site`` other than ``same-origin`` is refused;
- the approval's cookie and CSRF token match (compared in constant time).

Unknown, expired and decided ids get the same 404 page, which says nothing about which it was.
Every answer carries a strict CSP (no scripts; the one style block is allowed by its hash),
``X-Frame-Options: DENY``, ``Referrer-Policy: same-origin``, ``Cache-Control: no-store`` and
``nosniff`` (:data:`SECURITY_HEADERS`, sent by the listener).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import re
import threading
import weakref
from typing import Any, ClassVar, Final
from urllib.parse import parse_qs

import msgspec

from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.approvals import (
    APPROVAL_TTL_S,
    Approval,
    ApprovalStore,
    MemoryApprovalStore,
)
from sevdesk_mcp.safety.fence import hidden_characters
from sevdesk_mcp.safety.preview import IRREVERSIBLE_NOTE, MAX_PREVIEW_CHARS, Preview
from sevdesk_mcp.safety.redact import REDACTOR, Undisclosed

PATH: Final = re.compile(r"/a/([A-Za-z0-9_-]{43})")
FORM_TYPE: Final = "application/x-www-form-urlencoded"
MAX_FORM_FIELDS: Final = 8
MAX_BODY_BYTES: Final = 8 * 1024
COOKIE_PREFIX: Final = "sevdesk_approval_"
STYLE: Final = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;"
    "color:#1b1b1b;background:#fff}"
    ".ref{font:700 1.4rem ui-monospace,monospace;letter-spacing:.1em}"
    ".warnings{border:2px solid #b3261e;background:#fdecea;padding:.5rem 1rem .5rem 2rem}"
    ".warnings li{font-weight:600}"
    "dt{font-weight:600;margin-top:.6rem}"
    "dd{margin:0 0 0 1rem;white-space:pre-wrap;overflow-wrap:anywhere}"
    "h2{white-space:pre-wrap;overflow-wrap:anywhere}"
    ".cut{font-style:italic}"
    ".actions{display:flex;gap:1rem;margin-top:2rem}"
    "button{font-size:1.1rem;padding:.6rem 1.4rem;cursor:pointer}"
    ".approve{background:#1b5e20;color:#fff;border:0}"
    ".decline{background:#fff;color:#1b1b1b;border:2px solid #555}"
)
_STYLE_HASH: Final = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
CSP: Final = (
    f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS: Final = (
    ("Content-Security-Policy", CSP),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)
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


class Request(msgspec.Struct, frozen=True):
    """One request to the page.

    :param target: the request target as sent (path and query).
    :param headers: lower-case names; the listener refuses requests that repeat a header.
    :param host: the listener's own ``127.0.0.1:<port>``.
    """

    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    host: str

    def __rich_repr__(self) -> list[tuple[str, Any]]:  # msgspec's lists every field
        return [("request", repr(self))]

    def __repr__(self) -> str:  # the path (/a/<id>), query, cookie and form carry secrets
        path = PATH.sub("/a/…", self.target.partition("?")[0])
        return f"Request({self.method} {path!r}, {len(self.body)} bytes)"


class Response(Undisclosed, msgspec.Struct, frozen=True):
    """One answer of the page; the listener adds :data:`SECURITY_HEADERS`. Its repr shows
    neither the page (a CSRF token) nor the headers (the approval cookie)."""

    HIDDEN: ClassVar[frozenset[str]] = frozenset({"headers"})

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


class ApprovalSite:
    """Routes page requests to the approval stores attached to it (a page app, as
    ``approval_local.PageApp`` describes). It runs on the page listener's own thread, so it
    serves only stores of this process (:class:`MemoryApprovalStore`), which answer that thread
    synchronously.

    :cvar headers: sent with every answer (:data:`SECURITY_HEADERS`).
    :cvar max_body_bytes: the largest body the listener passes on (:data:`MAX_BODY_BYTES`).
    """

    headers: Final = SECURITY_HEADERS
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
        cookie = (
            f"{cookie_name(approval)}={approval.cookie}; Path=/; HttpOnly; SameSite=Strict; "
            f"Max-Age={int(APPROVAL_TTL_S)}"
        )
        body = approval_html(approval)
        return Response(200, body.encode(), (*_html_headers(), ("Set-Cookie", cookie)))

    def _decide(self, approval_id: str, request: Request) -> Response:
        if not same_origin(request):
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


def same_origin(request: Request) -> bool:
    """:returns: whether the request comes from the page's own origin."""
    origin = request.headers.get("origin")
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site != "same-origin":
        return False
    if origin is None:
        return fetch_site == "same-origin"
    return origin == f"http://{request.host}"


def cookie_name(approval: Approval) -> str:
    """:returns: the name of the approval's cookie (from its non-secret reference)."""
    return COOKIE_PREFIX + approval.reference.replace("-", "")


def _checked_decision(request: Request, approval: Approval) -> bool | None:
    """:returns: ``True`` to approve, ``False`` to decline, ``None`` if a check fails."""
    cookie = _cookies(request.headers.get("cookie", "")).get(cookie_name(approval), "")
    if not hmac.compare_digest(cookie.encode(), approval.cookie.encode()):
        return None
    form = _form(request)
    if form is None or not hmac.compare_digest(
        form.get("csrf", "").encode(), approval.csrf.encode()
    ):
        return None
    return {"approve": True, "decline": False}.get(form.get("decision", ""))


def _cookies(header: str) -> dict[str, str]:
    pairs = (part.strip().partition("=") for part in header.split(";"))
    return {name: value for name, _, value in pairs if name}


def _form(request: Request) -> dict[str, str] | None:
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != FORM_TYPE:
        return None
    try:
        fields = parse_qs(
            request.body.decode("ascii"), keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS
        )
    except (UnicodeDecodeError, ValueError):
        return None
    if any(len(values) != 1 for values in fields.values()):
        return None
    return {name: values[0] for name, values in fields.items()}


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
    body = _document(title, f"<h1>{_e(title)}</h1><p>{_e(text)}</p>")
    return Response(status, body.encode(), (*_html_headers(), *extra))


def approval_html(approval: Approval) -> str:
    """:returns: the approval page: reference, preview and the two decision forms."""
    changed = (
        "<p><strong>The record changed since the assistant first asked; the earlier request "
        f"is void. Changed: {_e(', '.join(approval.changed))}. Please review it again."
        "</strong></p>"
        if approval.changed
        else ""
    )
    forms = "".join(
        f'<form method="post" action="/a/{_e(approval.id)}">'
        f'<input type="hidden" name="csrf" value="{_e(approval.csrf)}">'
        f'<button type="submit" name="decision" value="{value}" class="{value}">{label}</button>'
        "</form>"
        for value, label in (("approve", "Approve"), ("decline", "Decline"))
    )
    content = (
        "<h1>Approve a sevDesk action?</h1>"
        f'<p>Reference <span class="ref">{_e(approval.reference)}</span>: check that your '
        "assistant named the same reference.</p>"
        f"<p>Tool <code>{_e(approval.binding.tool)}</code>; this request expires at "
        f"{_e(approval.expires_at)}.</p>{changed}{preview_html(approval.preview)}"
        f'<div class="actions">{forms}</div>'
    )
    return _document("Approve a sevDesk action", content)


def preview_html(preview: Preview) -> str:
    """:returns: the preview as HTML: warnings first, then the action and its facts."""
    budget = _Budget(MAX_PREVIEW_CHARS)
    warnings = [*preview.warnings, *([IRREVERSIBLE_NOTE] if preview.irreversible else [])]
    parts = []
    if warnings:
        items = "".join(f"<li>WARNING: {budget.take(w)}</li>" for w in warnings)
        parts.append(f'<ul class="warnings">{items}</ul>')
    parts.append(f"<h2>{budget.take(preview.action)}</h2>")
    facts = "".join(
        f"<dt>{budget.take(f.label)}</dt><dd>{budget.take(f.value)}</dd>" for f in preview.facts
    )
    parts.append(f"<dl>{facts}</dl>")
    if budget.cut:
        parts.append(
            f'<p class="cut">[… {budget.cut} more characters not shown; open the dry run to '
            "see everything]</p>"
        )
    return "".join(parts)


class _Budget:
    """Hands out at most ``limit`` visible characters in total, escaped; counts the rest."""

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.cut = 0

    def take(self, text: str) -> str:
        hidden = {chr(int(code[2:], 16)) for code in hidden_characters(text)}
        visible = "".join(c for c in REDACTOR(text) if c not in hidden)
        shown = visible[: self.left]
        self.left -= len(shown)
        self.cut += len(visible) - len(shown)
        return _e(shown)


def _document(title: str, content: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="referrer" content="same-origin"><title>{_e(title)}</title>'
        f"<style>{STYLE}</style></head><body>{content}</body></html>"
    )


def _html_headers() -> tuple[tuple[str, str], ...]:
    return (("Content-Type", "text/html; charset=utf-8"),)


def _e(text: str) -> str:
    return html.escape(text, quote=True)
