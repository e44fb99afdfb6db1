"""Every row of the browser session table (:mod:`sevdesk_mcp.http.web.session_table`) run
through both backends of sign-outs: which cookie carries a session, and how long a sign-out is
kept."""

from __future__ import annotations

import anyio
import pytest

from sevdesk_mcp.http.messages import Headers
from sevdesk_mcp.http.web.session_table import ADMIT, keep_s
from sevdesk_mcp.http.web.sessions import SESSION_TTL_S, MemorySignOuts, SessionStore, SignOuts
from sevdesk_mcp.http.web.sessions_redis import RedisSignOuts
from sevdesk_mcp.shared.seal import derived_key
from tests.clock import Clock

pytestmark = pytest.mark.anyio
KEYS = [derived_key("test-secret-" + "x" * 32, "cookie")]
SHORT_S = 0.05


@pytest.fixture(params=["memory", "redis"])
def signouts(request: pytest.FixtureRequest) -> SignOuts:
    """Either backend of sign-outs."""
    if request.param == "memory":
        return MemorySignOuts()
    return RedisSignOuts(request.getfixturevalue("shared_state"))


def _request(set_cookie: str) -> Headers:
    return Headers([(b"cookie", set_cookie.partition(";")[0].encode())])


@pytest.mark.parametrize("signed_out", [False, True], ids=["in", "signed-out"])
@pytest.mark.parametrize("live", [True, False], ids=["live", "expired"])
@pytest.mark.parametrize("opened", [True, False], ids=["opens", "tampered"])
async def test_every_admit_row_holds_on_both_backends(
    signouts: SignOuts, opened: bool, live: bool, signed_out: bool
) -> None:
    clock = Clock()
    store = SessionStore(signouts, keys=KEYS, clock=clock)
    session = store.start("4711", "Muster GmbH", "f" * 64)
    cookie = store.set_cookie(session)
    if not opened:
        name, _, value = cookie.partition(";")[0].partition("=")
        cookie = f"{name}={value[:-2]}{'AA' if value[-2:] != 'AA' else 'BB'}"
    if signed_out:
        await store.end(session)
    if not live:
        clock.advance(SESSION_TTL_S + 1)
    admitted = await store.of(_request(cookie)) == session
    assert admitted is ADMIT[opened][live][signed_out]


async def test_a_sign_out_is_kept_until_the_session_expires(signouts: SignOuts) -> None:
    clock = Clock()
    store = SessionStore(signouts, keys=KEYS, clock=clock)
    session = store.start("4711", "Muster GmbH")
    assert keep_s(session.expires, clock()) == SESSION_TTL_S
    await store.end(session)
    assert await signouts.has(session.id)
    await signouts.keep("short", SHORT_S)
    assert await signouts.has("short")
    await anyio.sleep(SHORT_S * 3)
    assert not await signouts.has("short")  # kept no longer than asked


async def test_an_expired_session_needs_no_sign_out(signouts: SignOuts) -> None:
    clock = Clock()
    store = SessionStore(signouts, keys=KEYS, clock=clock)
    session = store.start("4711", "Muster GmbH")
    clock.advance(SESSION_TTL_S)
    assert keep_s(session.expires, clock()) is None
    await store.end(session)
    assert not await signouts.has(session.id)
