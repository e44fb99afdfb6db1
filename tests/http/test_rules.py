"""The request rules as pure functions: client addresses, rate-limit keys, buckets, slots;
and the router refusing, not waving through, when shared buckets are out of reach."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import pytest

from sevdesk_mcp.errors import HttpError, StateUnavailableError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.hardening import check_path, client_address, client_key, host_allowed
from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.messages import Headers, Request
from sevdesk_mcp.http.ratelimit import InflightLimiter, MemoryRateLimits, RateLimiter
from sevdesk_mcp.http.router import Route, Router
from sevdesk_mcp.http.settings import HttpSettings, derive_site


def headers(*pairs: tuple[str, str]) -> Headers:
    return Headers([(k.encode(), v.encode()) for k, v in pairs])


@pytest.mark.parametrize(
    ("forwarded", "trust", "expected"),
    [
        ([], 1, "192.0.2.9"),
        (["203.0.113.7"], 0, "192.0.2.9"),
        (["203.0.113.7"], 1, "203.0.113.7"),
        (["1.1.1.1, 203.0.113.7"], 1, "203.0.113.7"),  # a client-sent entry on the left
        (["1.1.1.1, 203.0.113.7, 10.0.0.2"], 2, "203.0.113.7"),
        (["1.1.1.1", "203.0.113.7, 10.0.0.2"], 2, "203.0.113.7"),  # two header lines
        (["203.0.113.7"], 3, "203.0.113.7"),  # fewer hops than proxies: the leftmost
        (["garbage, 10.0.0.2"], 2, "10.0.0.2"),  # garbage: keep the last vouched address
        (["2001:db8::1"], 1, "2001:db8::1"),
    ],
)
def test_the_client_address_is_the_nth_forwarded_entry_from_the_right(
    forwarded: list[str], trust: int, expected: str
) -> None:
    request_headers = headers(*[("X-Forwarded-For", value) for value in forwarded])
    assert client_address("192.0.2.9", request_headers, trust) == expected


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("not-an-address", "not-an-address"),
    ],
)
def test_ipv6_clients_are_limited_per_64(address: str, key: str) -> None:
    assert client_key(address) == key


def test_a_token_bucket_refills_at_its_rate_and_says_how_long_to_wait() -> None:
    now = [0.0]
    limiter = RateLimiter(Limits(rate_per_s=0.5, rate_burst=2), clock=lambda: now[0])
    assert [limiter.retry_after_s("a"), limiter.retry_after_s("a")] == [None, None]
    assert limiter.retry_after_s("a") == 2
    assert limiter.retry_after_s("b") is None  # another client has its own bucket
    now[0] = 1.0
    assert limiter.retry_after_s("a") == 1
    now[0] = 2.0
    assert limiter.retry_after_s("a") is None


@pytest.mark.anyio
async def test_the_awaited_buckets_of_this_process_are_the_same_buckets() -> None:
    now = [0.0]
    limits = MemoryRateLimits(Limits(rate_per_s=0.5, rate_burst=1), clock=lambda: now[0])
    assert [await limits.retry_after_s("a"), await limits.retry_after_s("a")] == [None, 2]
    now[0] = 2.0
    assert await limits.retry_after_s("a") is None


class _StateGone:
    async def retry_after_s(self, key: str) -> int | None:
        raise StateUnavailableError("the shared state (Redis) cannot be reached")


@pytest.mark.anyio
async def test_a_state_failure_of_any_route_is_503_and_the_handler_never_runs() -> None:
    called: list[str] = []

    async def handler(exchange: Exchange) -> None:
        called.append(exchange.request.path)

    site = derive_site(HttpSettings(port=0), 8080)
    router = Router({"/mcp": Route({"POST": handler})}, site, Limits(), rates=_StateGone())
    request = Request("POST", "/mcp", "", headers(("Host", "localhost:8080")), "127.0.0.1")
    exchange = SimpleNamespace(request=request, client=request.peer, notes={})
    with pytest.raises(HttpError) as caught:
        await router(cast("Exchange", exchange))
    assert (caught.value.status, called) == (503, [])
    assert ("retry-after", "5") in caught.value.headers


def test_the_least_recently_used_bucket_is_dropped_first() -> None:
    limiter = RateLimiter(Limits(rate_per_s=0.001, rate_burst=1, max_tracked_clients=2))
    limiter.retry_after_s("a")
    limiter.retry_after_s("b")
    assert limiter.retry_after_s("a") is not None  # "a" is now the most recent
    limiter.retry_after_s("c")  # evicts "b"
    assert limiter.retry_after_s("b") is None
    assert limiter.retry_after_s("a") is None  # "a" was evicted when "b" came back


def test_in_flight_slots_are_capped_per_client_and_overall() -> None:
    slots = InflightLimiter(Limits(max_inflight_per_client=1, max_inflight=2))
    with slots.slot("a"):
        with pytest.raises(HttpError) as per_client:
            slots.slot("a").__enter__()
        with slots.slot("b"), pytest.raises(HttpError) as overall:
            slots.slot("c").__enter__()
        assert slots.total == 1
    assert (per_client.value.status, overall.value.status) == (429, 503)
    assert slots.total == 0
    with slots.slot("a"):
        assert slots.total == 1


@pytest.mark.parametrize("path", ["/mcp", "/a%20b", "/%41"])
def test_ordinary_paths_pass(path: str) -> None:
    check_path(path)


@pytest.mark.parametrize("path", ["mcp", "*", "/%00", "/%1f", "/%7F", "/%g0", "/%"])
def test_broken_paths_are_400(path: str) -> None:
    with pytest.raises(HttpError) as caught:
        check_path(path)
    assert caught.value.status == 400


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:1", True),
        ("LOCALHOST", True),
        ("localhost.", True),
        ("[::1]:8080", True),
        ("[0:0:0:0:0:0:0:1]", True),
        ("[::1", True),
        ("evil.example", False),
        ("127.0.0.2", False),
    ],
)
def test_host_names_are_compared_without_port_and_case(host: str, allowed: bool) -> None:
    site = derive_site(HttpSettings(port=0), 8080)
    assert host_allowed(headers(("Host", host)), site) is allowed


def test_two_host_headers_are_refused() -> None:
    site = derive_site(HttpSettings(port=0), 8080)
    assert not host_allowed(headers(("Host", "localhost"), ("Host", "localhost")), site)
