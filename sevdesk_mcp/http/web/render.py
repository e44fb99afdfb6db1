"""The web pages' frame on the page kit's shell: a header with the account and sign-out above
the content, and a page with one message; every value from elsewhere is HTML-escaped."""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.http.kit import page
from sevdesk_mcp.http.kit.lang import LANG_FIELD, Lang, with_lang
from sevdesk_mcp.http.kit.page import e, switch_link
from sevdesk_mcp.http.web.sessions import Session
from sevdesk_mcp.http.web.text import TEXT

SCRIPT: Final = "/web/upload.js"


def document(  # noqa: PLR0913 - the parts of a page
    lang: Lang,
    title: str,
    content: str,
    session: Session | None = None,
    *,
    script: bool = False,
    here: str = "/approvals",
) -> bytes:
    """:returns: a whole page: ``content`` in the frame, ``title`` in ``<title>``.

    :param here: the page's own path and query: the language switch links to it.
    """
    t = TEXT[lang]
    inbox = e(with_lang("/approvals", lang))
    who = ""
    if session is not None:
        who = (
            f'<a href="{inbox}">{t["inbox"]}</a>'
            f'<span class="who">{e(t["signed_in_as"].format(account=session.account_name))}</span>'
            '<form method="post" action="/signout">'
            f'<input type="hidden" name="csrf" value="{e(session.csrf)}">'
            f'<input type="hidden" name="{LANG_FIELD}" value="{lang}">'
            f'<button type="submit" class="link">{t["sign_out"]}</button></form>'
        )
    bar = (
        f'<a class="skip" href="#main">{t["skip"]}</a>'
        f'<header class="top"><nav class="bar" aria-label="{t["brand"]}">'
        f'<a class="brand" href="{inbox}">{t["brand"]}</a>{who}{switch_link(here, lang)}</nav>'
        "</header>"
    )
    full_title = f"{title} · {t['brand']}"
    return page.document(lang, full_title, content, bar=bar, script=SCRIPT if script else None)


def message_page(  # noqa: PLR0913 - the parts of a page
    lang: Lang,
    title: str,
    text: str,
    session: Session | None = None,
    *,
    error: bool = True,
    here: str = "/approvals",
) -> bytes:
    """:returns: a page with a title and one message (an error unless ``error`` is false).

    :param here: the page's own path and query (see :func:`document`).
    """
    kind = "error" if error else "notice"
    role = ' role="alert"' if error else ""
    inbox = e(with_lang("/approvals", lang))
    back = f'<p><a href="{inbox}">{TEXT[lang]["back_inbox"]}</a></p>' if session else ""
    content = f'<h1>{e(title)}</h1><p class="{kind}"{role}>{e(text)}</p>{back}'
    return document(lang, title, content, session, here=here)
