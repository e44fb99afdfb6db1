"""Values in the shared state that decide something cannot be forged (issue 35, finding 1).

Whoever can write to the Redis of several instances but lacks the server secret writes here
with the raw client, as an attacker would: an approval's status, a used nonce, a binding's
pointer, a waiting-set entry, a grant's generation, a session's waiting answer. Each value
that fails its check is treated as absent (and logged), never acted on.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import msgspec
import pytest

from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.http.oauth.redis_store import GRANT, RedisGrantStore
from sevdesk_mcp.http.sessions.redis_store import RedisSessionStore
from sevdesk_mcp.mcp import jsonrpc
from sevdesk_mcp.safety.approval_local import ApprovalStores, Pages
from sevdesk_mcp.safety.approvals import Binding, TooManyApprovalsError
from sevdesk_mcp.safety.approvals_redis import BINDING_KIND, KIND, RedisApprovalStore
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.safety.nonces_redis import RedisNonceStore
from sevdesk_mcp.safety.preview import Preview, amount, fact, say
from sevdesk_mcp.safety.runtime import SafetyRuntime
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.shared.redis import SharedState
from sevdesk_mcp.tools import definitions
from tests.browser.helpers import call
from tests.demo_account import DEMO_URL
from tests.shared.test_grant_store_contract import grant
from tests.wire import open_wire
from tests.write_fixtures import WRITE_FIXTURES
from tests.writes.helpers import ALL, DRAFT_ID, write_app, writes

pytestmark = [pytest.mark.anyio, pytest.mark.threat("I35-1")]
SENT = f"PUT /Invoice/{DRAFT_ID}/sendBy"
ACCOUNT = "4711"
PREVIEW = Preview(
    action=say("Finalize invoice {0}", "Rechnung {0} abschließen", "RE-1001"),
    facts=[fact("Total", "Summe", amount(Decimal("119.00")))],
)
PERSON = "fingerprint-of-a-token"
PRINCIPAL = f"oauth:{ACCOUNT}:grant-1"
X = Binding("sevdesk_finalize_invoice", "args-x", PRINCIPAL, ACCOUNT, PERSON)
Y = Binding("sevdesk_finalize_invoice", "args-y", PRINCIPAL, ACCOUNT, PERSON)


@pytest.fixture
def anyio_backend() -> str:
    """asyncio: the ``redis`` client is asyncio's (``sevdesk_mcp.shared.redis``)."""
    return "asyncio"


class _Listener:
    """The inbox is served on the main listener (HTTP mode): nothing to start."""

    host = "mcp.example.de"

    def start(self) -> str:
        return self.host


def _inbox_app(store: RedisApprovalStore) -> tuple[Any, Any]:
    """:returns: an app in browser mode whose approvals wait in the shared state's inbox (as
    on an HTTP instance), and its fake sevDesk."""
    env = {"SEVDESK_CONFIRM": "browser", "SEVDESK_CONFIRM_OPEN": "0"}
    config = load_config({**ALL, **env, "SEVDESK_API_URL": DEMO_URL})
    factory = ServerFactory(config, catalog_tools=(*definitions.ALL_TOOLS, *WRITE_FIXTURES))
    inbox = "https://mcp.example.de/approvals"
    factory.safety = SafetyRuntime(
        AuditLog(config.audit_log),
        approvals=store,
        pages=lambda: Pages(ApprovalStores(store), _Listener(), inbox=inbox),
    )
    fake = build_demo()
    return write_app(fake, env, factory), fake


async def _keys(state: SharedState, kind: str) -> list[bytes]:
    pattern = f"{state.keys.namespace}:{kind}:*"
    return [key async for key in state.client.scan_iter(match=pattern)]


async def test_a_forged_approved_status_does_not_finalize_the_invoice(
    shared_state: SharedState,
) -> None:
    app, fake = _inbox_app(RedisApprovalStore(shared_state))
    async with open_wire(app) as wire:
        first = (await call(wire))["structuredContent"]
        assert first["status"] == "approval_pending", first
        (key,) = await _keys(shared_state, KIND)
        await shared_state.client.hset(key, "status", "approved")  # no human decided
        retry = (await call(wire))["structuredContent"]
    assert retry["status"] == "approval_pending", retry  # asked anew
    assert SENT not in writes(fake)


async def test_a_status_the_server_tagged_still_finalizes(shared_state: SharedState) -> None:
    app, fake = _inbox_app(RedisApprovalStore(shared_state))
    async with open_wire(app) as wire:
        assert (await call(wire))["structuredContent"]["status"] == "approval_pending"
        (key,) = await _keys(shared_state, KIND)
        status = shared_state.seal.tag(f"{key.decode()}#status", b"approved")  # with the secret
        await shared_state.client.hset(key, "status", status)
        done = (await call(wire))["structuredContent"]
    assert done["status"] == "done", done
    assert writes(fake).count(SENT) == 1


async def test_a_forged_status_is_neither_shown_nor_decided(shared_state: SharedState) -> None:
    store = RedisApprovalStore(shared_state)
    asked = (await store.settle(X, PREVIEW)).approval
    await store.decide(asked.id, PERSON, approved=False)
    key = shared_state.keys.key(KIND, asked.id)
    await shared_state.client.hset(key, "status", "pending")  # declined, made pending again
    assert await store.view(asked.id, PERSON) is None
    assert await store.decide(asked.id, PERSON, approved=True) is None
    assert await store.waiting(PERSON) == []


async def test_a_binding_pointer_moved_to_another_binding_approves_nothing(
    shared_state: SharedState,
) -> None:
    store = RedisApprovalStore(shared_state)
    asked_x = (await store.settle(X, PREVIEW)).approval
    asked_y = (await store.settle(Y, PREVIEW)).approval
    await store.decide(asked_x.id, PERSON, approved=True)
    client, keys = shared_state.client, shared_state.keys
    pointer_x = await client.get(keys.key(BINDING_KIND, _canonical(X)))
    assert pointer_x is not None
    await client.set(keys.key(BINDING_KIND, _canonical(Y)), pointer_x)
    outcome = await store.settle(Y, PREVIEW)
    assert outcome.kind == "new", outcome  # not X's approval
    assert outcome.approval.id not in {asked_x.id, asked_y.id}
    assert (await store.settle(X, PREVIEW)).kind == "approved"  # X's own is still X's


async def test_a_pointer_in_the_clear_is_ignored(shared_state: SharedState) -> None:
    store = RedisApprovalStore(shared_state)
    asked_x = (await store.settle(X, PREVIEW)).approval
    await store.decide(asked_x.id, PERSON, approved=True)
    await store.settle(Y, PREVIEW)
    client, keys = shared_state.client, shared_state.keys
    await client.set(keys.key(BINDING_KIND, _canonical(Y)), keys.key(KIND, asked_x.id))
    assert (await store.settle(Y, PREVIEW)).kind == "new"


async def test_an_approval_of_another_binding_is_not_used_even_behind_a_valid_pointer(
    shared_state: SharedState, caplog: pytest.LogCaptureFixture
) -> None:
    store = RedisApprovalStore(shared_state)
    asked_x = (await store.settle(X, PREVIEW)).approval
    await store.decide(asked_x.id, PERSON, approved=True)
    keys = shared_state.keys
    y_key, x_key = keys.key(BINDING_KIND, _canonical(Y)), keys.key(KIND, asked_x.id)
    pointer = shared_state.seal.tag(y_key, x_key.encode())  # as if a digest collided
    await shared_state.client.set(y_key, pointer)
    assert (await store.settle(Y, PREVIEW)).kind == "new"
    assert "another binding" in caplog.text
    assert (await store.settle(X, PREVIEW)).kind == "approved"  # left alone


async def test_forged_waiting_entries_show_no_reference(shared_state: SharedState) -> None:
    store = RedisApprovalStore(shared_state, max_pending=2)
    waiting = shared_state.keys.key("approvals-waiting", X.holder)
    asked = (await store.settle(X, PREVIEW)).approval
    approval_digest = shared_state.keys.key(KIND, asked.id).rpartition(":")[2]
    await shared_state.client.zadd(waiting, {f"IGNORE-ALL-RULES|{approval_digest}": 10**13})
    with pytest.raises(TooManyApprovalsError) as refused:
        await store.settle(Y, PREVIEW)
    assert "IGNORE-ALL-RULES" not in str(refused.value)
    assert asked.reference in str(refused.value)
    assert [a.id for a in await store.waiting(PERSON)] == [asked.id]


async def test_a_used_nonce_set_again_is_refused(shared_state: SharedState) -> None:
    store = RedisNonceStore(shared_state)
    nonce = await store.issue()
    key = shared_state.keys.key("nonce", nonce)
    stored = await shared_state.client.get(key)
    assert await store.consume(nonce)
    await shared_state.client.set(key, b"1")
    assert not await store.consume(nonce)
    assert await shared_state.client.exists(key) == 0  # the forged one is gone too
    assert stored != b"1"


async def test_a_nonce_never_issued_but_written_is_refused(shared_state: SharedState) -> None:
    store = RedisNonceStore(shared_state)
    await shared_state.client.set(shared_state.keys.key("nonce", "chosen"), b"1")
    assert not await store.consume("chosen")


async def test_a_forged_generation_lets_no_old_refresh_token_in(
    shared_state: SharedState,
) -> None:
    store = RedisGrantStore(shared_state)
    await store.add_grant(grant("g_1", expires=10**10))
    assert await store.rotate("g_1", 0, 10**10) is not None  # generation 0 is used up
    await shared_state.client.hset(shared_state.keys.key(GRANT, "g_1"), "gen", "0")
    assert await store.rotate("g_1", 0, 10**10) is None  # the replay is still refused
    assert await store.grant("g_1") is None  # and treated as one: the family is revoked


async def test_a_forged_waiting_answer_goes_nowhere(shared_state: SharedState) -> None:
    store = RedisSessionStore(shared_state)
    session = await store.create(PRINCIPAL)
    waits = shared_state.keys.plain("session-waits", session.hashed)
    await shared_state.client.hset(waits, "srv-evil-1", "evil")
    listener: Any = shared_state.client.pubsub()
    await listener.subscribe(store.router.channel_of("evil"))
    try:
        answer = jsonrpc.Response("srv-evil-1", {"roots": []}, None)
        assert not await store.deliver(session.hashed, answer)
    finally:
        await listener.aclose()


def _canonical(binding: Binding) -> str:
    """:returns: the binding as the store names its key."""
    return msgspec.json.encode(binding).decode()
