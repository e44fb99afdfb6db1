"""Several instances on one Redis, under faults (issue 35, findings 5, 7b and 1).

- Finding 5: an elicitation answer that reaches another instance than the waiting one while the
  waiting one is not subscribed (just after Redis came back) was consumed and dropped (400); now
  it is kept and the client is told to send it again (503), and it reaches the call.
- Finding 7b: a write whose instance died while sending leaves its records marked; the next
  holder of their locks learns that the earlier attempt's outcome is unknown, and the human is
  told before approving again.
- Finding 1: a lock value, an executing mark or a pub/sub message written into Redis without
  the server secret is ignored (logged), never acted on.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

import anyio
import pytest

from sevdesk_mcp.cli.scaleout import SharedStores
from sevdesk_mcp.domain.writes import Prepared
from sevdesk_mcp.errors import StateUnavailableError, ToolError
from sevdesk_mcp.http.sessions.redis_session import SharedSession
from sevdesk_mcp.http.sessions.redis_store import RedisSessionStore
from sevdesk_mcp.http.settings import load_http_settings
from sevdesk_mcp.mcp.jsonrpc import Response
from sevdesk_mcp.mcp.types import JsonObject
from sevdesk_mcp.safety.approvals_redis import RedisApprovalStore
from sevdesk_mcp.safety.locks import Held
from sevdesk_mcp.safety.locks_redis import Lease, RedisRecordLocks
from sevdesk_mcp.safety.preview import Preview, Words, say
from sevdesk_mcp.shared.redis import SharedState, open_state
from sevdesk_mcp.tools import write_flow
from tests.redis_server import RedisProcess
from tests.shared.test_session_store_contract import Asked
from tests.wire import HANG_GUARD_S

pytestmark = pytest.mark.anyio
SECRET = "scaleout-faults-" + "z" * 32
PRINCIPAL = "oauth:acct-7:grant-1"
SCOPE, RECORD = "account-7", "invoice/42"
ACCEPT: JsonObject = {"action": "accept", "content": {"approve": True}}


async def checked(held: Held) -> None:
    """Check the locks as the write flow does right before sending, with an outcome known at
    once (no mark is left behind)."""
    await held.begin("0123456789abcdef", "sevdesk_test_tool")
    held.settle()


@pytest.fixture
def anyio_backend() -> str:
    """asyncio: the ``redis`` client is asyncio's (``sevdesk_mcp.shared.redis``)."""
    return "asyncio"


def _listening(store: RedisSessionStore) -> bool:
    return store.router.listening


def _sent_id(waiting: Waiting) -> str:
    return str(waiting.asked.sent[0]["id"])


def states(url: str, count: int = 2) -> list[SharedState]:
    """:returns: ``count`` instances' connections to one namespace (one secret)."""
    namespace = f"t{uuid.uuid4().hex}"
    return [open_state(url, [SECRET], namespace=namespace) for _ in range(count)]


# --- finding 5: an answer is never consumed without reaching the call --------------------------


@dataclass
class Waiting:
    """A call on instance ``a`` that waits for the client's answer."""

    session: SharedSession
    asked: Asked
    outcome: list[object]

    async def run(self) -> None:
        async with self.session.running("call-1"):
            request = self.session.request(self.asked, "elicitation/create", {}, HANG_GUARD_S)
            self.outcome.append(await request)


async def _waiting(a: RedisSessionStore, tg: anyio.abc.TaskGroup) -> Waiting:
    session = await a.create(PRINCIPAL)
    waiting = Waiting(session, Asked(), [])
    tg.start_soon(waiting.run)
    await waiting.asked.arrived.wait()
    return waiting


async def _deliver_until_heard(b: RedisSessionStore, session_id: str, answer: Response) -> int:
    """Send the answer to instance ``b`` as a client would: again after each 503.

    :returns: how many times it was told to send again.
    """
    refused = 0
    while True:
        try:
            on_b = await b.get(session_id, PRINCIPAL)
            assert on_b is not None
            delivered = await on_b.deliver(answer)
        except StateUnavailableError:
            refused += 1
            await anyio.sleep(0.05)
            continue
        assert delivered, "the answer was consumed and dropped (400)"
        return refused


@pytest.mark.threat("I35-5")
async def test_healthz_stays_unhealthy_until_the_answer_routing_listens_again(
    redis_url: str,
) -> None:
    """Redis answers, but this instance's routing has not subscribed (again): an answer for a
    call waiting here could not reach it, so the instance is not healthy (``/healthz`` 503)."""
    (state,) = states(redis_url, 1)
    sessions = RedisSessionStore(state)
    shared = SharedStores(state, load_http_settings({}), RedisApprovalStore(state), sessions)
    with anyio.fail_after(HANG_GUARD_S):
        assert await shared.state.ping()
        assert not await shared.healthy()  # never subscribed yet
        async with anyio.create_task_group() as tg:
            routing = anyio.CancelScope()
            tg.start_soon(_serve_in, sessions, routing)
            while not _listening(sessions):  # noqa: ASYNC110
                await anyio.sleep(0.01)
            assert await shared.healthy()
            routing.cancel()
            while _listening(sessions):  # noqa: ASYNC110
                await anyio.sleep(0.01)
            assert not await shared.healthy()  # Redis is there; the routing is not
    await state.aclose()


@pytest.mark.threat("I35-5")
async def test_an_answer_the_waiting_instance_does_not_hear_is_kept_and_resent(
    redis_url: str,
) -> None:
    one, two = states(redis_url)
    a, b = RedisSessionStore(one), RedisSessionStore(two)
    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            await tg.start(b.serve)
            routing = anyio.CancelScope()  # a's routing, stopped below
            tg.start_soon(_serve_in, a, routing)
            while not _listening(a):  # noqa: ASYNC110
                await anyio.sleep(0.01)
            waiting = await _waiting(a, tg)
            routing.cancel()
            while _listening(a):  # noqa: ASYNC110
                await anyio.sleep(0.01)
            await a.router._beat()  # alive, only not subscribed (reconnecting to Redis)
            request_id = _sent_id(waiting)
            answer = Response(request_id, ACCEPT, None)
            on_b = await b.get(waiting.session.id, PRINCIPAL)
            assert on_b is not None
            with pytest.raises(StateUnavailableError, match="send the same answer again"):
                await on_b.deliver(answer)
            waits = one.keys.plain("session-waits", waiting.session.hashed)
            assert await one.client.hexists(waits, str(request_id))  # not consumed
            await tg.start(a.serve)  # subscribed again
            await _deliver_until_heard(b, waiting.session.id, answer)
            while not waiting.outcome:  # noqa: ASYNC110
                await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
    assert waiting.outcome == [ACCEPT]
    for state in (one, two):
        await state.aclose()


async def _serve_in(store: RedisSessionStore, scope: anyio.CancelScope) -> None:
    with scope:
        await store.serve()


@pytest.mark.threat("I35-5")
async def test_redis_restarted_an_answer_sent_to_the_other_instance_reaches_the_call() -> None:
    """A real Redis (persisting, as production does) stopped and started again while a call
    waits on one instance; the client answers through the other one at once. End to end: on
    the code before the fix it failed only when the answer beat the resubscription, so the
    deterministic regression tests are the two around it (the kept answer, and health)."""
    redis = RedisProcess(persist=True).start()
    one, two = states(redis.url)
    a, b = RedisSessionStore(one), RedisSessionStore(two)
    try:
        with anyio.fail_after(HANG_GUARD_S):
            async with anyio.create_task_group() as tg:
                await tg.start(a.serve)
                await tg.start(b.serve)
                waiting = await _waiting(a, tg)
                redis.stop()
                while _listening(a):  # noqa: ASYNC110
                    await anyio.sleep(0.01)
                redis.start()
                answer = Response(_sent_id(waiting), ACCEPT, None)
                await _deliver_until_heard(b, waiting.session.id, answer)
                while not waiting.outcome:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
                tg.cancel_scope.cancel()
    finally:
        redis.stop()
        for state in (one, two):
            await state.aclose()
    assert waiting.outcome == [ACCEPT]


# --- finding 7b: an instance that died while sending ------------------------------------------


async def _died_while_sending(locks: RedisRecordLocks, call: str) -> None:
    """Take the lock and mark the record as a write would right before sending, then vanish
    without releasing (what a SIGKILL leaves: the lease runs out, the mark stays)."""
    lease = Lease(locks._scripts, locks._lease_ms, locks._state.seal)
    await locks._acquire(lease, (SCOPE, RECORD), anyio.current_time() + HANG_GUARD_S)
    await lease.begin(call, "sevdesk_finalize_invoice")


@pytest.mark.threat("I35-7b")
async def test_a_lock_whose_holder_died_while_sending_names_the_unknown_outcome(
    redis_url: str,
) -> None:
    one, two = states(redis_url)
    dead = RedisRecordLocks(one, lease_s=0.2, renew_s=0.1)
    await _died_while_sending(dead, "c0ffee00c0ffee00")
    retry = RedisRecordLocks(two)  # another instance
    with anyio.fail_after(HANG_GUARD_S):
        async with retry.hold(SCOPE, [RECORD]) as held:  # waits out the dead lease
            (earlier,) = held.earlier
            prepared = Prepared(
                Preview(action=say("Finalize invoice RE-1001", "Rechnung RE-1001 abschließen")),
                plan=None,
            )
            warned = write_flow._warned(prepared, held, asks=True, binding=True)
        for _ in range(2):  # a binding action nobody confirms: refused while the mark lasts
            async with retry.hold(SCOPE, [RECORD]) as binding:
                assert binding.earlier == [earlier]
                with pytest.raises(ToolError, match="SEVDESK_CONFIRM=off"):
                    write_flow._warned(prepared, binding, asks=False, binding=True)
        async with retry.hold(SCOPE, [RECORD]) as again:  # declined: still unknown
            assert again.earlier == [earlier]
            with pytest.raises(ToolError, match="outcome_unknown") as refused:
                write_flow._warned(prepared, again, asks=False, binding=False)  # told once
        async with retry.hold(SCOPE, [RECORD]) as after:
            assert after.earlier == []
    assert earlier.call == "c0ffee00c0ffee00" and earlier.tool == "sevdesk_finalize_invoice"
    (said,) = warned.preview.warnings
    warning = Words("en", "model").text(said)
    assert "outcome_unknown" in warning and "c0ffee00c0ffee00" in warning
    assert "Check the record in sevDesk before approving" in warning
    assert "Prüfen Sie den Datensatz in sevDesk" in Words("de").text(said)
    assert "c0ffee00c0ffee00" in str(refused.value)
    for state in (one, two):
        await state.aclose()


@pytest.mark.threat("I35-7b")
async def test_a_write_whose_outcome_is_known_leaves_no_mark(redis_url: str) -> None:
    (state,) = states(redis_url, 1)
    locks = RedisRecordLocks(state)
    async with locks.hold(SCOPE, [RECORD]) as held:
        await held.begin("feedface00000000", "sevdesk_finalize_invoice")
        held.settle()
    async with locks.hold(SCOPE, [RECORD]) as next_one:
        assert next_one.earlier == []
    await state.aclose()


# --- finding 1: forged lock values, marks and messages ---------------------------------------


@pytest.mark.threat("I35-1")
async def test_a_forged_lock_value_is_taken_over_and_logged(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    (state,) = states(redis_url, 1)
    locks = RedisRecordLocks(state, wait_s=0.2)
    await state.client.set(locks.key(SCOPE, RECORD), "0123456789abcdef:99")  # no tag
    with anyio.fail_after(HANG_GUARD_S):
        async with locks.hold(SCOPE, [RECORD]) as held:
            await checked(held)
    assert any("fails its check" in r.getMessage() for r in caplog.records)
    await state.aclose()


@pytest.mark.threat("I35-1")
async def test_a_lock_tagged_under_an_unknown_secret_is_waited_for_not_taken(
    redis_url: str,
) -> None:
    """A secret rotation in progress: an instance that knows only the old secret finds a lock
    another instance tagged under the new one. It fails the check, but it lives as a lease
    does, so it is waited for (here until the store's wait ends), never taken over."""
    (newer,) = states(redis_url, 1)
    older = open_state(redis_url, ["older-secret-" + "y" * 32], namespace=newer.keys.namespace)
    held_by_newer = RedisRecordLocks(newer)
    waiting = RedisRecordLocks(older, wait_s=0.3)
    with anyio.fail_after(HANG_GUARD_S):
        async with held_by_newer.hold(SCOPE, [RECORD]) as first:
            await checked(first)
            with pytest.raises(ToolError, match="still running"):
                async with waiting.hold(SCOPE, [RECORD]):
                    pass  # pragma: no cover - the lock must not be taken
    await older.aclose()
    await newer.aclose()


@pytest.mark.threat("I35-1")
async def test_a_forged_executing_mark_is_ignored_and_logged(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    (state,) = states(redis_url, 1)
    locks = RedisRecordLocks(state)
    forged = json.dumps({"call": "evil", "tool": "x", "since": "2020-01-01T00:00:00Z"})
    await state.client.set(locks.key(SCOPE, RECORD, kind="lockrun"), forged)
    async with locks.hold(SCOPE, [RECORD]) as held:
        assert held.earlier == []
    assert any("fails its check" in r.getMessage() for r in caplog.records)
    await state.aclose()


@pytest.mark.threat("I35-1")
async def test_forged_pubsub_messages_are_ignored_and_logged(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An ``accept`` answer and a cancel published without the server secret, in the clear,
    and one sealed for another channel copied to this one: none acts."""
    one, two = states(redis_url)
    a = RedisSessionStore(one)
    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            await tg.start(a.serve)
            waiting = await _waiting(a, tg)
            request_id = _sent_id(waiting)
            direct = a.router.channel_of(a.instance)
            answer = {"k": "answer", "s": waiting.session.hashed, "m": {"id": request_id}}
            answer["m"]["result"] = ACCEPT  # type: ignore[index]
            cancel = {"k": "cancel", "s": waiting.session.hashed, "r": "call-1"}
            moved = two.seal.seal(one.keys.channel("sessions"), json.dumps(answer).encode())
            for message in (json.dumps(answer).encode(), json.dumps(cancel).encode(), moved):
                await two.client.publish(direct, message)
            await two.client.publish(one.keys.channel("sessions"), json.dumps(cancel).encode())
            while sum("does not open" in r.getMessage() for r in caplog.records) < 4:  # noqa: ASYNC110
                await anyio.sleep(0.01)
            assert waiting.outcome == []  # neither answered nor cancelled
            assert await a.router.answer(
                a.instance, waiting.session.hashed, Response(request_id, {"ok": 1}, None), ("", b"")
            )
            while not waiting.outcome:  # noqa: ASYNC110
                await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
    assert waiting.outcome == [{"ok": 1}]  # the genuine answer reached the call
    for state in (one, two):
        await state.aclose()
