"""The shared state's foundation: URL checks, key names, sealing and the error boundary."""

from __future__ import annotations

import anyio
import pytest

from sevdesk_mcp.errors import ConfigError, StateUnavailableError
from sevdesk_mcp.shared import redis as shared_redis
from sevdesk_mcp.shared.keys import Keys, digest
from sevdesk_mcp.shared.redis import SharedState, check_url, guard, open_state
from sevdesk_mcp.shared.seal import Seal
from tests.redis_server import RedisProcess, free_port

SECRET = "s" * 40


@pytest.mark.parametrize(
    "url",
    ["redis://127.0.0.1:6379/0", "rediss://:pw@redis.example.de:6380/2", "redis://redis"],
)
def test_redis_urls_are_accepted(url: str) -> None:
    assert check_url(url) == url


@pytest.mark.parametrize(
    "url", ["http://redis:6379", "redis://", "redis://:6379", "redis://h:99999", "unix:///s", ""]
)
def test_other_urls_are_refused_with_the_form_to_use(url: str) -> None:
    with pytest.raises(ConfigError, match="redis://") as caught:
        check_url(url)
    assert "SEVDESK_HTTP_STATE_URL" in str(caught.value)


def test_secret_ids_appear_only_as_digests() -> None:
    key = Keys("ns").key("approval", "secret-approval-id")
    assert key == f"ns:approval:{digest('secret-approval-id')}"
    assert "secret" not in key.removeprefix("ns:approval:")
    assert len(digest("x")) == 43


def test_a_sealed_value_opens_only_under_its_key_and_secret() -> None:
    seal = Seal([SECRET])
    sealed = seal.seal("ns:a:1", b"token")
    assert b"token" not in sealed
    assert seal.open("ns:a:1", sealed) == b"token"
    with pytest.raises(StateUnavailableError, match="same secret"):
        seal.open("ns:a:2", sealed)  # moved to another key
    with pytest.raises(StateUnavailableError):
        Seal(["t" * 40]).open("ns:a:1", sealed)
    with pytest.raises(StateUnavailableError):
        seal.open("ns:a:1", b"\x02" + sealed[1:])


def test_values_sealed_before_a_rotation_still_open() -> None:
    old = Seal([SECRET]).seal("k", b"v")
    assert Seal(["n" * 40, SECRET]).open("k", old) == b"v"


def test_a_seal_needs_a_secret() -> None:
    with pytest.raises(ValueError, match="secret"):
        Seal([])


@pytest.mark.threat("I35-1")
def test_a_tagged_value_passes_only_under_its_key_and_secret(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seal = Seal([SECRET])
    tagged = seal.tag("ns:a:1", b"approved")
    assert tagged.startswith(b"approved~") and tagged == seal.tag("ns:a:1", b"approved")
    assert seal.untag("ns:a:1", tagged) == b"approved"
    assert seal.untag("ns:a:1", None) is None and not caplog.records  # absent: nothing logged
    forged = [
        b"approved",  # in the clear
        seal.tag("ns:a:2", b"approved"),  # moved from another key
        tagged.replace(b"approved", b"declined"),  # another value under the same MAC
        Seal(["t" * 40]).tag("ns:a:1", b"approved"),  # another secret
        tagged[:-1],
    ]
    assert [seal.untag("ns:a:1", value) for value in forged] == [None] * len(forged)
    assert len(caplog.records) == len(forged)
    assert "ns:a:1" in caplog.text and "approved" not in caplog.text


@pytest.mark.threat("I35-1")
def test_values_tagged_before_a_rotation_still_pass_and_scripts_get_both_tags() -> None:
    old, rotated = Seal([SECRET]), Seal(["n" * 40, SECRET])
    assert rotated.untag("k", old.tag("k", b"1")) == b"1"
    assert rotated.tags("k", b"1") == (rotated.tag("k", b"1"), old.tag("k", b"1"))
    assert rotated.tag("k", b"1") != old.tag("k", b"1")


@pytest.mark.threat("I35-1")
def test_a_value_with_the_separator_is_not_tagged() -> None:
    with pytest.raises(ValueError, match="separator"):
        Seal([SECRET]).tag("k", b"a~b")


@pytest.mark.anyio
async def test_a_real_server_answers_and_values_round_trip(shared_state: SharedState) -> None:
    assert await shared_state.ping()
    key = shared_state.keys.key("probe", "id")
    async with guard():
        await shared_state.client.set(key, shared_state.seal.seal(key, b"v"), ex=60)
        raw = await shared_state.client.get(key)
    assert isinstance(raw, bytes)
    assert shared_state.seal.open(key, raw) == b"v"


@pytest.mark.anyio
async def test_an_unreachable_server_is_a_clear_error_and_not_healthy() -> None:
    state = open_state(f"redis://127.0.0.1:{free_port()}/0", [SECRET])
    assert not await state.ping()
    with pytest.raises(StateUnavailableError, match="SEVDESK_HTTP_STATE_URL") as caught:
        async with guard():
            await state.client.get("k")
    assert "not completed" in str(caught.value)
    await state.aclose()


@pytest.mark.anyio
async def test_a_server_that_returns_is_used_again() -> None:
    server = RedisProcess().start()
    state = open_state(server.url, [SECRET])
    try:
        assert await state.ping()
        server.stop()
        assert not await state.ping()
        server.start()
        assert await state.ping()
    finally:
        server.stop()
        await state.aclose()


@pytest.mark.anyio
async def test_after_an_outage_no_connection_from_before_it_is_used_again() -> None:
    """A connection opened before Redis went away may still look open when it is back and fail
    the first command sent on it (seen in test_outage): the first failure closes every idle
    connection, so the first command after Redis returns succeeds."""
    server = RedisProcess().start()
    state = open_state(server.url, [SECRET])
    try:

        async def put(key: str) -> None:
            await state.client.set(key, b"v")

        async with guard(), anyio.create_task_group() as tg:  # several pooled connections
            for n in range(3):
                tg.start_soon(put, f"k{n}")
        pool = state.client.connection_pool
        assert len(pool._available_connections) == 3
        server.stop()
        with pytest.raises(StateUnavailableError):
            async with guard():
                await state.client.get("k0")
        assert not any(c.is_connected for c in pool._available_connections)
        server.start()  # empty: nothing was persisted
        async with guard():
            assert await state.client.get("k0") is None
    finally:
        server.stop()
        await state.aclose()


@pytest.mark.anyio
async def test_a_close_that_fails_still_reports_the_outage(monkeypatch: pytest.MonkeyPatch) -> None:
    class _Pool:
        async def disconnect(self, inuse_connections: bool = True) -> None:
            raise RuntimeError("event loop is closed")

    class _Client:
        connection_pool = _Pool()

    broken = _Client()
    monkeypatch.setattr(shared_redis, "_CLIENTS", [broken])
    with pytest.raises(StateUnavailableError, match="SEVDESK_HTTP_STATE_URL"):
        async with guard():
            raise ConnectionError("gone")  # a reset, as the socket reports it
