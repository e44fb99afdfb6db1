"""Threat case F02 (and S05, J11): no secret of the process leaves it, by any path.

Issue 12, finding 3: when sevDesk's error text echoed the ``Authorization`` header, the tool
result said ``sevDesk says ⟦bad token <the token>⟧``: the redactor knew the token, but nothing on
the way out of the dispatcher used it. Each test below injects a fresh canary secret (so no
earlier test can have registered it) through one path and scans everything that path emits:
tool result text, ``structuredContent``, tool errors, JSON-RPC errors, previews (in results and
in requests to the client), notifications, log records and audit lines.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import secrets
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import httpx
import msgspec
import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config, load_token
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.http.oauth.consent_page import ConsentView
from sevdesk_mcp.http.pages import Request as PageRequest
from sevdesk_mcp.http.settings import HttpSettings, load_http_settings
from sevdesk_mcp.http.web.sessions import Session
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.state import RequestStateCodec
from sevdesk_mcp.mcp.types import (
    ElicitForm,
    Implementation,
    InputRequired,
    JsonObject,
    ToolResult,
)
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.safety.redact import FRAGMENT_CHARS, MASK, RedactingFilter, Redactor
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer
from tests.demo_account import DEMO_URL, FAST
from tests.wire import FORM, HANG_GUARD_S, open_wire

pytestmark = pytest.mark.anyio
Quote = Callable[[str], str]


def canary() -> str:
    """:returns: a new secret shaped like a sevDesk API token (32 hex digits)."""
    return secrets.token_hex(16)


def leaks(seen: str, secret: str) -> bool:
    """:returns: whether ``seen`` shows ``secret`` or any piece of it of the masked length."""
    low, pieces = seen.lower(), len(secret) - FRAGMENT_CHARS + 1
    return any(secret[i : i + FRAGMENT_CHARS].lower() in low for i in range(pieces))


class EchoingSevdesk(httpx.AsyncBaseTransport):
    """The fake sevDesk; after :meth:`echo_next` it answers one request with HTTP 400 whose
    error text quotes the request's ``Authorization`` header, as sevDesk did in the review."""

    def __init__(self, fake: FakeSevdesk) -> None:
        self._inner = fake.transport()
        self._quote: Quote | None = None

    def echo_next(self, quote: Quote) -> None:
        """Answer the next request with an error quoting its token through ``quote``."""
        self._quote = quote

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the echo, once, then the fake's answers."""
        if self._quote is None:
            return await self._inner.handle_async_request(request)
        message, self._quote = self._quote(request.headers["authorization"]), None
        body = {"error": {"message": message, "code": None, "responseCode": 400}, "objects": None}
        return httpx.Response(400, json=body)


CONFIG = load_config({"SEVDESK_API_URL": DEMO_URL, "SEVDESK_ALLOW": "write"})


def sevdesk_client(token: str, transport: EchoingSevdesk) -> SevdeskClient:
    """:returns: a client sending ``token`` (read as start-up reads it) through ``transport``."""
    return SevdeskClient(
        base_url=DEMO_URL,
        token=load_token({"SEVDESK_API_TOKEN": token}) or pytest.fail("no token"),
        gate=WriteGate(tiers=CONFIG.tiers, read_only=CONFIG.read_only, dry_run=CONFIG.dry_run),
        pacer=Pacer(rate_per_s=10_000, burst=10_000),
        limits=FAST,
        transport=transport,
    )


def product() -> McpApp:
    """:returns: the product's server without a sevDesk account."""
    return ServerFactory(CONFIG).build(AccountContext(config=CONFIG))


def sevdesk_app(client: SevdeskClient, fake: FakeSevdesk) -> McpApp:
    """:returns: the product's server with the write tier on ``client``."""
    account = AccountContext(config=CONFIG, client=client, demo=True, today=lambda: fake.today)
    return ServerFactory(CONFIG).build(account)


async def contact_named(name: str) -> tuple[McpApp, str]:
    """:returns: a server whose sevDesk holds a contact called ``name`` + a canary, and it."""
    token = canary()
    fake = FakeSevdesk(token=token)
    client = sevdesk_client(token, EchoingSevdesk(fake))
    app = sevdesk_app(client, fake)
    await client.send(
        "POST",
        "/Contact",
        tier=Tier.WRITE,
        json={"name": f"{name} {token}", "category": {"id": 3, "objectName": "Category"}},
    )
    return app, token


@pytest.mark.threat("F02")
async def test_tool_result_text_never_shows_a_secret() -> None:
    app, token = await contact_named("Echo GmbH")
    async with open_wire(app) as wire:
        await wire.initialize()  # 2025 era: the text is the whole result
        answer = await wire.request(
            "tools/call", {"name": "sevdesk_search_contacts", "arguments": {"query": "Echo"}}
        )
    text = answer["result"]["content"][0]["text"]
    assert "Echo GmbH" in text and MASK in text
    assert not leaks(json.dumps(answer), token)


@pytest.mark.threat("F02")
async def test_structured_content_never_shows_a_secret() -> None:
    app, token = await contact_named("Struct GmbH")
    async with open_wire(app) as wire:
        answer = await wire.modern(
            "tools/call", {"name": "sevdesk_search_contacts", "arguments": {"query": "Struct"}}
        )
    structured = json.dumps(answer["result"]["structuredContent"])
    assert "Struct GmbH" in structured and MASK in structured
    assert not leaks(json.dumps(answer), token)


ECHOES: dict[str, Quote] = {
    "plain": lambda t: f"bad token {t}",
    "bearer header": lambda t: f"Authorization: Bearer {t} is not valid",
    "upper case": lambda t: f"bad token {t.upper()}",
    "zero-width split": lambda t: f"bad token {t[:10]}\u200b{t[10:]}",
    "split in two": lambda t: f"bad token {t[:16]} {t[16:]}",
    "cut off": lambda t: f"bad token {t[:20]}",
}


@pytest.mark.threat("F02")
@pytest.mark.threat("S05")
@pytest.mark.parametrize("quote", ECHOES.values(), ids=ECHOES.keys())
async def test_a_tool_error_quoting_the_token_never_shows_it(quote: Quote) -> None:
    token = canary()
    fake = FakeSevdesk(token=token)
    transport = EchoingSevdesk(fake)
    async with open_wire(sevdesk_app(sevdesk_client(token, transport), fake)) as wire:
        transport.echo_next(quote)
        answer = await wire.modern(
            "tools/call", {"name": "sevdesk_get_contact", "arguments": {"contact_id": 7}}
        )
        after = await wire.modern("tools/call", {"name": "sevdesk_account_info"})
    result = answer["result"]
    assert result["isError"] is True
    assert "sevDesk says" in result["content"][0]["text"] and MASK in result["content"][0]["text"]
    assert not leaks(json.dumps(answer), token)
    assert "isError" not in after["result"]  # the token itself still works


@pytest.mark.threat("F02")
async def test_a_json_rpc_error_never_shows_a_secret() -> None:
    token = canary()
    load_token({"SEVDESK_API_TOKEN": token})  # registered where it is read
    async with open_wire(product()) as wire:
        unknown_tool = await wire.modern("tools/call", {"name": f"x{token}"})
        unknown_method = await wire.modern(f"{token}/list")
    assert unknown_tool["error"]["code"] == -32602 and unknown_method["error"]["code"] == -32601
    assert MASK in unknown_tool["error"]["message"] and MASK in unknown_method["error"]["message"]
    assert not leaks(json.dumps([unknown_tool, unknown_method]), token)


@pytest.mark.threat("F02")
async def test_the_bearer_secrets_current_and_previous_never_show() -> None:
    current = base64.b64encode(os.urandom(36)).decode("ascii")  # letters, digits, + and /
    previous = secrets.token_urlsafe(32)
    load_http_settings(
        {
            "SEVDESK_HTTP_AUTH": "bearer",
            "SEVDESK_HTTP_SECRET": current,
            "SEVDESK_HTTP_SECRET_PREVIOUS": previous,
        }
    )
    async with open_wire(product()) as wire:
        answers = [
            await wire.modern("tools/call", {"name": name})
            for name in (current, previous, f"x{previous[:20]}")
        ]
    seen = json.dumps(answers)
    assert not leaks(seen, current) and not leaks(seen, previous)


@pytest.mark.threat("F02")
async def test_a_preview_never_shows_a_secret() -> None:
    token = canary()
    fake = FakeSevdesk(token=token)
    arguments = {"kind": "organisation", "category": "customer", "name": f"Preview {token}"}
    app = sevdesk_app(sevdesk_client(token, EchoingSevdesk(fake)), fake)
    async with open_wire(app) as wire:
        answer = await wire.modern(
            "tools/call",
            {"name": "sevdesk_create_contact", "arguments": {**arguments, "dryRun": True}},
        )
    preview = answer["result"]["structuredContent"]["preview"]
    assert preview and MASK in json.dumps(preview)
    assert not leaks(json.dumps(answer), token)


@pytest.mark.threat("F02")
async def test_an_approval_request_sent_to_the_client_never_shows_a_secret() -> None:
    token = canary()
    load_token({"SEVDESK_API_TOKEN": token})
    async with open_wire(tool_app(token)) as wire:
        modern = await wire.modern("tools/call", {"name": "ask"}, caps=FORM)
        await wire.initialize(caps={"elicitation": {}})
        await wire.send(
            {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "ask"}}
        )
        asked = await wire.recv()
        await wire.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "decline"}})
        final = await wire.recv()
    assert asked["method"] == "elicitation/create" and MASK in asked["params"]["message"]
    assert MASK in json.dumps(modern["result"]["inputRequests"])
    assert not leaks(json.dumps([modern, asked, final]), token)


@pytest.mark.threat("F02")
async def test_notifications_to_the_client_never_show_a_secret() -> None:
    token = canary()
    load_token({"SEVDESK_API_TOKEN": token})
    async with open_wire(tool_app(token)) as wire:
        await wire.initialize()
        await wire.request("logging/setLevel", {"level": "debug"})
        params = {"name": "chatty", "_meta": {"progressToken": "p"}}
        await wire.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
        frames = [await wire.recv() for _ in range(4)]
    methods = [f.get("method") for f in frames]
    assert methods == [*["notifications/progress"] * 2, "notifications/message", None]
    assert MASK in frames[0]["params"]["message"] and MASK in json.dumps(frames[2])
    assert not leaks(json.dumps(frames), token)


@pytest.mark.threat("F02")
@pytest.mark.threat("J11")
async def test_a_log_record_never_shows_a_secret(caplog: pytest.LogCaptureFixture) -> None:
    caplog.handler.addFilter(RedactingFilter())
    caplog.set_level(logging.DEBUG)
    token = canary()
    load_token({"SEVDESK_API_TOKEN": token})  # read at start-up, before any client exists
    async with open_wire(tool_app(token)) as wire:
        boom = await wire.modern("tools/call", {"name": "boom"})
        after = await wire.modern("tools/call", {"name": "ask"}, caps=FORM)
    logging.getLogger("sevdesk_mcp").warning("cut %s", token[:24], stack_info=True)
    assert boom["error"]["code"] == -32603 and "reference" in boom["error"]["message"]
    assert "result" in after  # the server keeps serving
    assert "Traceback" in caplog.text and MASK in caplog.text
    assert not leaks(caplog.text + json.dumps(boom), token)


@pytest.mark.threat("F02")
def test_an_audit_line_never_shows_a_secret(tmp_path: Path) -> None:
    token = canary()
    (tmp_path / "token").write_text(f"{token}\n")
    load_token({"SEVDESK_API_TOKEN_FILE": str(tmp_path / "token")})  # registered where read
    audit = AuditLog(tmp_path / "audit.jsonl")
    audit.write("failed", error=f"sevDesk says ⟦bad token {token[:20]}⟧", nested={"k": [token]})
    line = (tmp_path / "audit.jsonl").read_text()
    assert MASK in line and json.loads(line)["event"] == "failed"
    assert not leaks(line, token)


@pytest.mark.threat("F02")
def test_the_redactor_masks_each_form_a_secret_is_quoted_in() -> None:
    redactor = Redactor()
    secret = "Ab+/cd=ef~gh.ij-kl_mnOPqrstuv0123456789"
    key = os.urandom(32)
    redactor.add(secret)
    redactor.add_key(key)
    redactor.add("short")  # too short to register: it would mask ordinary words
    forms = [
        secret,
        secret.swapcase(),
        json.dumps(secret)[1:-1],
        "Ab%2B%2Fcd%3Def~gh.ij-kl_mnOPqrstuv0123456789",
        secret[:18],
        secret[-18:],
        key.hex(),
        key.hex().upper(),
        base64.b64encode(key).decode(),
        base64.urlsafe_b64encode(key).decode().rstrip("="),
    ]
    for form in forms:
        assert redactor(f"x {form} y") == f"x {MASK} y", form
    assert redactor("a short note about sevDesk") == "a short note about sevDesk"
    assert Redactor()(secret) == secret


@pytest.mark.threat("F02")
@pytest.mark.parametrize("length", [16, 32, 47])
def test_every_piece_of_a_secret_is_masked_wherever_it_starts(length: int) -> None:
    redactor = Redactor()
    secret = secrets.token_urlsafe(48)[:length]
    redactor.add(secret)
    for start in range(len(secret) - FRAGMENT_CHARS + 1):
        piece = secret[start : start + FRAGMENT_CHARS]
        assert redactor(f"echo: {piece}!") == f"echo: {MASK}!", piece


def test_a_long_clean_blob_is_passed_through_as_it_is() -> None:
    redactor = Redactor()
    redactor.add(canary())
    redactor.add_key(os.urandom(32))
    blob = base64.b64encode(os.urandom(300_000)).decode("ascii")
    answer: JsonObject = {"contents": [{"uri": "sevdesk://invoices/1/pdf", "blob": blob}]}
    assert redactor.scrub_object(answer) is answer


@pytest.mark.threat("F02")
async def test_the_proxy_credentials_never_show() -> None:
    password = secrets.token_urlsafe(12)
    load_config({"SEVDESK_PROXY": f"http://ops:{password}@proxy.example:3128"})
    async with open_wire(product()) as wire:
        answer = await wire.modern("tools/call", {"name": f"x{password}"})
    assert MASK in answer["error"]["message"]
    assert password not in json.dumps(answer)


def test_scrubbing_returns_clean_data_unchanged_and_masks_keys_too() -> None:
    redactor = Redactor()
    secret = canary()
    redactor.add(secret)
    clean: JsonObject = {"a": [1, "two", {"b": None}], "c": 1.5}
    assert redactor.scrub_object(clean) is clean
    dirty: JsonObject = {secret: [1, {"b": f"x{secret}"}], "n": True}
    assert redactor.scrub_object(dirty) == {MASK: [1, {"b": f"x{MASK}"}], "n": True}


class SecretTools:
    """Tools that put a secret into each message a handler can send."""

    names = ("ask", "chatty", "boom")

    def __init__(self, secret: str) -> None:
        self.secret = secret

    def list_tools(self, ctx: RequestContext) -> Sequence[JsonObject]:
        return [{"name": n, "inputSchema": {"type": "object"}} for n in self.names]

    async def call_tool(
        self, name: str, arguments: JsonObject, ctx: RequestContext
    ) -> ToolResult | InputRequired:
        if name == "ask" and ctx.input_responses is None:
            schema: JsonObject = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
            form = ElicitForm(f"Approve sending with {self.secret}?", schema)
            return InputRequired({"ok": form}, state={"k": self.secret})
        if name == "chatty":
            await ctx.report_progress(1, 2, f"using {self.secret}")
            await ctx.report_progress(2, 2, "done")
            await ctx.log("error", {"token": self.secret})
        if name == "boom":
            raise RuntimeError(f"unexpected: {self.secret}")
        return ToolResult(content=[{"type": "text", "text": "ok"}])


def tool_app(secret: str = "") -> McpApp:
    """:returns: a server whose tools send ``secret`` through every path they have."""
    return McpApp(
        info=Implementation(name="secrets", version="1"),
        codec=RequestStateCodec(),
        tools=SecretTools(secret),
        elicitation_timeout_s=HANG_GUARD_S,
    )


@pytest.mark.threat("F02")
def test_the_sealing_key_is_known_to_the_redactor() -> None:
    key = os.urandom(32)
    RequestStateCodec(key)
    from sevdesk_mcp.safety.redact import REDACTOR

    for shown in (
        key.hex(),
        base64.b64encode(key).decode(),
        base64.urlsafe_b64encode(key).decode(),
    ):
        assert not leaks(REDACTOR(f"key={shown}"), shown)


@pytest.mark.threat("F02")
def test_the_browser_approval_page_never_shows_a_secret() -> None:
    from sevdesk_mcp.http.kit.approval import preview_html
    from sevdesk_mcp.safety.preview import Preview, Quoted, fact, say
    from sevdesk_mcp.safety.redact import REDACTOR

    secret = canary()
    REDACTOR.add(secret)
    facts = [fact("Header", "Kopftext", Quoted(f"token {secret}"))]
    for lang in ("de", "en"):
        html = preview_html(Preview(action=say("Finalize", "Abschließen"), facts=facts), lang)
        assert not leaks(html, secret) and MASK in html


@pytest.mark.threat("F02")
def test_values_holding_browser_credentials_keep_them_out_of_their_repr() -> None:
    secret = "s3cr3t-" + secrets.token_hex(8)
    page_id = secrets.token_urlsafe(32)  # the approval page's path holds its secret id
    values: list[msgspec.Struct] = [
        Session(id=secret, account="4711", account_name="Firma", csrf=secret, expires=1.0),
        ConsentView(
            client_name="c",
            client_host="client.example",
            redirect_host="client.example",
            redirect_local=False,
            request=secret,
            csrf=secret,
            offered=(Tier.READ,),
            checked=frozenset(),
            other_lang_url=f"/authorize?state={secret}&lang=en",
        ),
        PageRequest(
            method="POST",
            target=f"/a/{page_id}?token={secret}",
            headers={"cookie": f"approval={secret}"},
            body=f"csrf={secret}".encode(),
            host="127.0.0.1:1",
        ),
    ]
    shown = [repr(value) for value in values]
    assert all(secret not in text and page_id not in text for text in shown), shown
    assert "4711" in shown[0] and "client.example" in shown[1] and "/a/" in shown[2]
    rich = [str(value.__rich_repr__()) for value in values]  # what rich would print
    assert all(secret not in text and page_id not in text for text in rich), rich


@pytest.mark.threat("F02")
def test_http_settings_keep_the_state_stores_password_out_of_their_repr() -> None:
    password = "s3cr3t-" + secrets.token_hex(8)
    settings = HttpSettings(state_url=f"rediss://user:{password}@redis.internal:6380/0")
    shown = [repr(settings), str(settings.__rich_repr__())]
    assert all(password not in text and "redis.internal:6380" in text for text in shown), shown
    assert repr(HttpSettings(state_url="redis://127.0.0.1:6379/0")).count("127.0.0.1:6379") == 1


@pytest.mark.threat("F02")
def test_values_holding_file_content_or_lock_tokens_keep_them_out_of_their_repr(
    tmp_path: Path,
) -> None:
    from sevdesk_mcp.domain.reports.exports import ExportFile
    from sevdesk_mcp.http.pages import Response as PageResponse
    from sevdesk_mcp.http.web.multipart import Part
    from sevdesk_mcp.safety.files import LocalFile
    from sevdesk_mcp.safety.locks_redis import Lease
    from sevdesk_mcp.safety.transfers import Upload
    from sevdesk_mcp.sevdesk.client import Upload as ReceiptUpload
    from sevdesk_mcp.sevdesk.wire_documents import PdfFile

    secret = "s3cr3t-" + secrets.token_hex(8)
    content = f"%PDF-1.7 IBAN DE89370400440532013000 {secret}".encode()
    values: list[msgspec.Struct] = [
        Part(data=content, filename="beleg.pdf", content_type="application/pdf"),
        LocalFile(
            given="beleg.pdf",
            path=tmp_path / "beleg.pdf",
            name="beleg.pdf",
            media_type="application/pdf",
            data=content,
            sha256="0" * 64,
        ),
        Upload(data=content, declared_type="application/pdf", filename="beleg.pdf"),
        ReceiptUpload(name="beleg.pdf", data=content, media_type="application/pdf"),
        ExportFile(name="export.zip", media_type="application/zip", data=content),
        PageResponse(
            status=200,
            body=content,
            headers=(("set-cookie", f"approval={secret}; HttpOnly"),),
        ),
        PdfFile(content=base64.b64encode(content).decode() + secret, filename="RE-1001.pdf"),
        Lease(
            scripts=cast("Any", None),
            lease_ms=30_000,
            seal=cast("Any", None),
            keys=["lock:invoice/42"],
            values=[secret],
        ),
    ]
    texts = [[repr(value), str(value.__rich_repr__())] for value in values]
    shown = [text for pair in texts for text in pair]
    assert all(secret not in text and "IBAN" not in text for text in shown), shown
    assert all(base64.b64encode(content).decode()[:16] not in text for text in shown), shown
    size = f"<{len(content)} bytes>"
    assert all(size in text for pair in texts[:6] for text in pair), texts
    assert "beleg.pdf" in texts[0][0] and "status=200" in texts[5][0], texts
    assert "RE-1001.pdf" in texts[6][0], texts
    assert "lock:invoice/42" in texts[7][0] and "lease_ms=30000" in texts[7][0], texts


def _package_structs() -> list[type[msgspec.Struct]]:
    """:returns: every Struct class of the package outside the fake, its modules imported."""
    import importlib
    import pkgutil

    import sevdesk_mcp

    for info in pkgutil.walk_packages(sevdesk_mcp.__path__, "sevdesk_mcp."):
        if not info.name.startswith(("sevdesk_mcp.fake", "sevdesk_mcp.__main__")):
            importlib.import_module(info.name)
    found, todo = [], list(msgspec.Struct.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        module = cls.__module__
        if module.startswith("sevdesk_mcp.") and not module.startswith("sevdesk_mcp.fake"):
            found.append(cls)
    return found


@pytest.mark.threat("F02")
def test_every_struct_holding_bytes_keeps_them_out_of_its_repr() -> None:
    """A Struct with a bytes field (file content, a sealed value) shows neither in its repr
    nor in rich's view: it uses ``redact.Undisclosed`` or has a repr of its own."""
    structs = _package_structs()
    holding = [cls for cls in structs if any(_holds_bytes(f.type) for f in _fields(cls))]
    names = {cls.__qualname__ for cls in holding}
    assert {"Part", "LocalFile", "ExportFile", "Response"} <= names, names  # the walk works
    bare = [
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in holding
        if cls.__repr__ is msgspec.Struct.__repr__
        or cls.__rich_repr__ is msgspec.Struct.__rich_repr__
    ]
    assert bare == [], bare


def _fields(cls: type[msgspec.Struct]) -> tuple[msgspec.structs.FieldInfo, ...]:
    try:
        return msgspec.structs.fields(cls)
    except (NameError, TypeError):  # generic or forward-declared: no bytes among ours
        return ()


def _holds_bytes(annotation: object) -> bool:
    return annotation is bytes or bytes in typing.get_args(annotation)
