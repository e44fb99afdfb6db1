"""SEVDESK_HTTP_* from the environment, and what a server derives from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.http.settings import (
    HttpSettings,
    derive_site,
    load_http_settings,
    normalize_origin,
    require_auth,
)
from sevdesk_mcp.safety.redact import REDACTOR, Secret

SECRET = "s" * 40
BEARER = {"SEVDESK_HTTP_AUTH": "bearer", "SEVDESK_HTTP_SECRET": SECRET}


def test_the_defaults_bind_loopback_8080_without_auth() -> None:
    settings = load_http_settings({})
    assert settings == HttpSettings()
    assert (settings.host, settings.port, settings.auth) == ("127.0.0.1", 8080, None)
    with pytest.raises(ConfigError, match="SEVDESK_HTTP_AUTH"):
        require_auth(settings)


@pytest.mark.parametrize("value", ["", "  ", "${user_config.http_port}"])
def test_empty_whitespace_and_placeholders_count_as_unset(value: str) -> None:
    names = [
        "SEVDESK_HTTP_HOST",
        "SEVDESK_HTTP_PORT",
        "SEVDESK_HTTP_PUBLIC_URL",
        "SEVDESK_HTTP_ALLOWED_HOSTS",
        "SEVDESK_HTTP_ALLOWED_ORIGINS",
        "SEVDESK_HTTP_TRUST_PROXY",
        "SEVDESK_HTTP_AUTH",
        "SEVDESK_HTTP_SECRET",
    ]
    assert load_http_settings(dict.fromkeys(names, value)) == HttpSettings()


def test_bearer_mode_with_a_secret_and_a_previous_one() -> None:
    previous = "p" * 40
    settings = load_http_settings({**BEARER, "SEVDESK_HTTP_SECRET_PREVIOUS": previous})
    require_auth(settings)
    assert settings.auth == "bearer"
    assert settings.secrets == (Secret(SECRET), Secret(previous))
    assert REDACTOR(f"x {SECRET} {previous}") == "x [redacted] [redacted]"


def test_the_secret_can_come_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "secret"
    path.write_text(SECRET + "\n")
    env = {"SEVDESK_HTTP_AUTH": "Bearer", "SEVDESK_HTTP_SECRET_FILE": str(path)}
    assert load_http_settings(env).secrets == (Secret(SECRET),)


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"SEVDESK_HTTP_PORT": "http"}, "SEVDESK_HTTP_PORT"),
        ({"SEVDESK_HTTP_PORT": "70000"}, "SEVDESK_HTTP_PORT"),
        ({"SEVDESK_HTTP_HOST": "example.com"}, "SEVDESK_HTTP_HOST"),
        ({"SEVDESK_HTTP_HOST": "0.0.0.0"}, "SEVDESK_HTTP_PUBLIC_URL"),
        ({"SEVDESK_HTTP_PUBLIC_URL": "http://mcp.example.com"}, "SEVDESK_HTTP_PUBLIC_URL"),
        ({"SEVDESK_HTTP_PUBLIC_URL": "https://mcp.example.com/mcp"}, "SEVDESK_HTTP_PUBLIC_URL"),
        ({"SEVDESK_HTTP_PUBLIC_URL": "https://u@mcp.example.com"}, "SEVDESK_HTTP_PUBLIC_URL"),
        ({"SEVDESK_HTTP_TRUST_PROXY": "-1"}, "SEVDESK_HTTP_TRUST_PROXY"),
        ({"SEVDESK_HTTP_TRUST_PROXY": "11"}, "SEVDESK_HTTP_TRUST_PROXY"),
        ({"SEVDESK_HTTP_ALLOWED_HOSTS": "https://x.example"}, "SEVDESK_HTTP_ALLOWED_HOSTS"),
        ({"SEVDESK_HTTP_ALLOWED_HOSTS": "x.example:443"}, "SEVDESK_HTTP_ALLOWED_HOSTS"),
        ({"SEVDESK_HTTP_ALLOWED_ORIGINS": "claude.ai"}, "SEVDESK_HTTP_ALLOWED_ORIGINS"),
        ({"SEVDESK_HTTP_ALLOWED_ORIGINS": "https://a.example/x"}, "SEVDESK_HTTP_ALLOWED_ORIGINS"),
        ({"SEVDESK_HTTP_ALLOWED_ORIGINS": "https://a.example:x"}, "SEVDESK_HTTP_ALLOWED_ORIGINS"),
        ({"SEVDESK_HTTP_AUTH": "saml"}, "SEVDESK_HTTP_AUTH"),
        ({"SEVDESK_HTTP_AUTH": "bearer"}, "SEVDESK_HTTP_SECRET"),
        ({**BEARER, "SEVDESK_HTTP_SECRET": "short"}, "SEVDESK_HTTP_SECRET"),
        ({**BEARER, "SEVDESK_HTTP_SECRET": "a b" * 20}, "SEVDESK_HTTP_SECRET"),
        ({**BEARER, "SEVDESK_HTTP_SECRET_FILE": "/x"}, "SEVDESK_HTTP_SECRET"),
        ({**BEARER, "SEVDESK_HTTP_SECRET_PREVIOUS": SECRET}, "SEVDESK_HTTP_SECRET_PREVIOUS"),
        ({**BEARER, "SEVDESK_HTTP_SECRET_PREVIOUS": "x"}, "SEVDESK_HTTP_SECRET_PREVIOUS"),
    ],
)
def test_a_bad_value_names_the_variable(env: dict[str, str], variable: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_http_settings(env)
    assert caught.value.variable == variable
    assert "short" not in str(caught.value) and SECRET not in str(caught.value)


def test_an_unreadable_or_oversized_secret_file_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.write_text("a" * 5000)
    for path in (tmp_path / "missing", big):
        env = {"SEVDESK_HTTP_AUTH": "bearer", "SEVDESK_HTTP_SECRET_FILE": str(path)}
        with pytest.raises(ConfigError, match="SEVDESK_HTTP_SECRET_FILE"):
            load_http_settings(env)


def test_lists_and_a_public_bind_are_normalized() -> None:
    env = {
        "SEVDESK_HTTP_HOST": "::",
        "SEVDESK_HTTP_PUBLIC_URL": "https://MCP.example.com:443/",
        "SEVDESK_HTTP_ALLOWED_HOSTS": "A.example, [::1] ,10.0.0.1",
        "SEVDESK_HTTP_ALLOWED_ORIGINS": "https://Claude.AI:443, http://localhost:3000",
        "SEVDESK_HTTP_TRUST_PROXY": "2",
    }
    settings = load_http_settings(env)
    assert settings.public_url == "https://mcp.example.com"
    assert settings.allowed_hosts == ("a.example", "::1", "10.0.0.1")
    assert settings.allowed_origins == ("https://claude.ai", "http://localhost:3000")
    assert settings.trust_proxy == 2 and settings.host == "::"


def test_a_loopback_site_allows_the_loopback_names_on_its_port() -> None:
    site = derive_site(HttpSettings(port=0), 4242)
    assert site.public_url == "http://127.0.0.1:4242" and site.mcp_url.endswith(":4242/mcp")
    assert site.allowed_hosts == {"127.0.0.1", "localhost", "::1"}
    assert site.allowed_origins == {
        "http://127.0.0.1:4242",
        "http://localhost:4242",
        "http://[::1]:4242",
    }
    assert not site.https


def test_a_public_site_allows_its_public_host_and_configured_extras() -> None:
    settings = HttpSettings(
        host="0.0.0.0",
        public_url="https://mcp.example.com",
        allowed_hosts=("internal.example",),
        allowed_origins=("https://claude.ai",),
        trust_proxy=1,
    )
    site = derive_site(settings, 8080)
    assert site.https and site.trust_proxy == 1
    assert site.allowed_hosts == {"mcp.example.com", "internal.example"}
    assert site.allowed_origins == {"https://mcp.example.com", "https://claude.ai"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://a.example:443", "https://a.example"),
        ("http://A.example:8080", "http://a.example:8080"),
        ("http://[::1]:80", "http://[::1]"),
        ("null", None),
        ("chrome-extension://abc", None),
        ("https://a.example?x", None),
    ],
)
def test_origins_are_normalized(value: str, expected: str | None) -> None:
    assert normalize_origin(value) == expected


def test_the_number_of_connections_is_a_setting_and_half_of_them_may_be_streams() -> None:
    from sevdesk_mcp.http.limits import MAX_CONNECTIONS
    from sevdesk_mcp.http.settings import limits_for, load_http_settings

    default = limits_for(load_http_settings({}))
    assert (default.max_connections, default.max_streams) == (MAX_CONNECTIONS, 128)
    raised = limits_for(load_http_settings({"SEVDESK_HTTP_MAX_CONNECTIONS": "1200"}))
    assert (raised.max_connections, raised.max_streams) == (1200, 600)
    assert raised.max_connections_per_client == 32  # the per-address cap stays
    behind = limits_for(
        load_http_settings({"SEVDESK_HTTP_MAX_CONNECTIONS": "100", "SEVDESK_HTTP_TRUST_PROXY": "1"})
    )
    assert behind.max_connections_per_client == 100
    for bad in ("8", "20000", "many"):
        with pytest.raises(ConfigError, match="SEVDESK_HTTP_MAX_CONNECTIONS"):
            load_http_settings({"SEVDESK_HTTP_MAX_CONNECTIONS": bad})


def test_per_client_rate_and_in_flight_cap_are_settings() -> None:
    from sevdesk_mcp.http.limits import Limits
    from sevdesk_mcp.http.settings import limits_for, load_http_settings

    default = limits_for(load_http_settings({}))
    assert default.rate_per_s == Limits().rate_per_s
    assert default.max_inflight_per_client == Limits().max_inflight_per_client
    tuned = limits_for(
        load_http_settings(
            {"SEVDESK_HTTP_RATE_PER_S": "500", "SEVDESK_HTTP_INFLIGHT_PER_CLIENT": "32"}
        )
    )
    assert (tuned.rate_per_s, tuned.rate_burst, tuned.max_inflight_per_client) == (500.0, 500, 32)
    for name, bad in (
        ("SEVDESK_HTTP_RATE_PER_S", "0"),
        ("SEVDESK_HTTP_INFLIGHT_PER_CLIENT", "999"),
    ):
        with pytest.raises(ConfigError, match=name):
            load_http_settings({name: bad})
