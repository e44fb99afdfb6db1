"""The page kit (``http.kit``): one escaper, stylesheet, CSP, form reader and same-origin check,
and no page with a copy of its own."""

from __future__ import annotations

import ast
import base64
import hashlib
from pathlib import Path

import pytest

from sevdesk_mcp.errors import FormError
from sevdesk_mcp.http.kit.forms import cookie, form_of, params
from sevdesk_mcp.http.kit.guard import same_origin, tokens_match
from sevdesk_mcp.http.kit.headers import LOCAL_CSP, PUBLIC_CSP, public_headers
from sevdesk_mcp.http.kit.lang import pick_lang
from sevdesk_mcp.http.kit.page import document
from sevdesk_mcp.http.kit.style import STYLE, STYLE_HASH

HTTP = Path(__file__).resolve().parents[2] / "sevdesk_mcp" / "http"
OWN = "https://mcp.example.de"


def test_the_one_csp_allows_the_one_stylesheet_by_its_hash_and_differs_by_listener_only() -> None:
    assert base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode() == STYLE_HASH
    for csp in (PUBLIC_CSP, LOCAL_CSP):
        assert csp.startswith(f"default-src 'none'; style-src 'sha256-{STYLE_HASH}'; ")
        assert csp.endswith("frame-ancestors 'none'; base-uri 'none'") and "unsafe" not in csp
    assert "script-src 'self'" in PUBLIC_CSP and "form-action" not in PUBLIC_CSP
    assert "form-action 'self'" in LOCAL_CSP and "script-src" not in LOCAL_CSP


def test_public_headers_replace_the_csp_and_referrer_policy_once() -> None:
    base = [("content-security-policy", "x"), ("referrer-policy", "no-referrer"), ("a", "b")]
    headers = public_headers(base)
    assert headers == [
        ("a", "b"),
        ("content-security-policy", PUBLIC_CSP),
        ("referrer-policy", "same-origin"),
    ]


def test_the_shell_inlines_the_stylesheet_and_escapes_the_title() -> None:
    page = document("de", "<T>", "<p>x</p>", script="/web/upload.js").decode()
    assert page.startswith('<!doctype html><html lang="de">') and "<title>&lt;T&gt;</title>" in page
    assert f"<style>{STYLE}</style>" in page and '<main id="main"><p>x</p></main>' in page
    assert '<script src="/web/upload.js" defer></script>' in page


@pytest.mark.parametrize(
    "raw",
    ["a=1&a=2", "a=%ff", "a=%01", "a=" + "x" * 4097, "&".join(f"f{i}=1" for i in range(33))],
)
def test_the_form_reader_refuses_what_two_readers_could_read_differently(raw: str) -> None:
    with pytest.raises(FormError):
        params(raw)


def test_a_form_body_needs_its_media_type_and_utf8() -> None:
    form = "application/x-www-form-urlencoded; charset=utf-8"
    assert form_of(form, b"csrf=a&decision=") == {"csrf": "a", "decision": ""}
    for content_type, body in (("application/json", b"a=1"), (form, b"a=\xff")):
        with pytest.raises(FormError):
            form_of(content_type, body)
    with pytest.raises(FormError):
        form_of(form, b"a=1&b=2&c=3", max_fields=2)


def test_a_cookie_counts_only_when_sent_once() -> None:
    assert cookie(["a=1; b=2"], "b") == "2"
    assert cookie(["b=1; b=2"], "b") is None and cookie(["b=1", "b=2"], "b") is None


@pytest.mark.parametrize(
    ("origins", "sites", "bare", "ok"),
    [
        ([OWN], [], False, True),
        (["HTTPS://MCP.example.de:443"], ["same-origin"], False, True),
        ([], ["same-origin"], False, True),
        ([], [], False, False),
        ([], [], True, True),
        (["null"], [], True, False),
        (["https://evil.example"], [], True, False),
        ([OWN], ["cross-site"], True, False),
        ([], ["same-site"], True, False),
        ([OWN, OWN], [], True, False),
        ([], ["same-origin", "same-origin"], True, False),
    ],
)
def test_the_one_same_origin_rule(
    origins: list[str], sites: list[str], bare: bool, ok: bool
) -> None:
    assert same_origin(origins, sites, OWN, bare=bare) is ok


def test_tokens_match_in_constant_time_and_never_when_missing() -> None:
    assert tokens_match("abc", "abc") and not tokens_match("abc", "abd")
    assert (
        not tokens_match("", "") and not tokens_match("abc", None) and not tokens_match(None, "x")
    )
    assert not tokens_match("abc", "äbc")


def test_the_language_is_as_asked_else_as_the_browser_prefers() -> None:
    assert pick_lang("de", "en") == "de" and pick_lang(None, "de-DE,de;q=0.9") == "de"
    assert pick_lang("fr", "fr") == "en" and pick_lang(None, None) == "en"


def _calls_and_names(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "<style" in node.value or "style-src" in node.value or "<!doctype" in node.value:
                found.add("page-part")
        elif isinstance(node, ast.ImportFrom) and node.module == "urllib.parse":
            found |= {alias.name for alias in node.names}
    return found


PAGES = (
    *sorted((HTTP / "web").glob("*.py")),
    *(HTTP / "oauth" / f"{name}.py" for name in ("authorize", "consent", "consent_page", "forms")),
    HTTP / "local" / "approval_page.py",
    HTTP / "pages.py",
)


@pytest.mark.parametrize("path", PAGES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_no_page_has_its_own_escaper_stylesheet_csp_shell_or_form_reader(path: Path) -> None:
    found = _calls_and_names(path) & {
        "escape",
        "page-part",
        "parse_qs",
        "parse_qsl",
        "compare_digest",
    }
    assert not found, sorted(found)
