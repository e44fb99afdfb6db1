"""SEVDESK_HTTP_STATE_URL and SEVDESK_HTTP_STATE_NAMESPACE."""

from __future__ import annotations

from pathlib import Path

import pytest

from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.http.settings import load_http_settings
from sevdesk_mcp.safety.redact import REDACTOR

BEARER = {"SEVDESK_HTTP_AUTH": "bearer", "SEVDESK_HTTP_SECRET": "s" * 40}


def test_without_a_url_every_store_stays_in_the_process() -> None:
    settings = load_http_settings(BEARER)
    assert settings.state_url is None
    assert settings.state_namespace == "sevdesk-mcp"


def test_a_url_and_a_namespace_are_read() -> None:
    env = BEARER | {
        "SEVDESK_HTTP_STATE_URL": "rediss://redis.internal:6380/1",
        "SEVDESK_HTTP_STATE_NAMESPACE": "office-a",
    }
    settings = load_http_settings(env)
    assert settings.state_url == "rediss://redis.internal:6380/1"
    assert settings.state_namespace == "office-a"


def test_the_password_in_the_url_is_masked_in_logs() -> None:
    password = "Zq7-very-secret-redis-password"
    env = BEARER | {"SEVDESK_HTTP_STATE_URL": f"redis://:{password}@redis:6379/0"}
    load_http_settings(env)
    assert password not in REDACTOR(f"cannot connect with {password}")


def test_a_refused_url_does_not_show_its_password() -> None:
    password = "Xv9-another-secret-password"
    env = BEARER | {"SEVDESK_HTTP_STATE_URL": f"http://:{password}@redis:6379"}
    with pytest.raises(ConfigError, match="SEVDESK_HTTP_STATE_URL") as caught:
        load_http_settings(env)
    assert password not in str(caught.value)
    assert password not in REDACTOR(f"x {password}")


@pytest.mark.parametrize("value", ["a b", "x" * 65, "ns:colon", "ns/slash"])
def test_a_namespace_of_other_characters_is_refused(value: str) -> None:
    env = BEARER | {"SEVDESK_HTTP_STATE_NAMESPACE": value}
    with pytest.raises(ConfigError, match="SEVDESK_HTTP_STATE_NAMESPACE"):
        load_http_settings(env)


def test_the_url_may_come_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "state-url"
    path.write_text("redis://:pw-from-a-file-0123456789@redis:6379/0\n")
    settings = load_http_settings(BEARER | {"SEVDESK_HTTP_STATE_URL_FILE": str(path)})
    assert settings.state_url == "redis://:pw-from-a-file-0123456789@redis:6379/0"
    assert "pw-from-a-file-0123456789" not in REDACTOR("x pw-from-a-file-0123456789")


def test_the_url_and_its_file_together_are_refused(tmp_path: Path) -> None:
    env = BEARER | {
        "SEVDESK_HTTP_STATE_URL": "redis://redis",
        "SEVDESK_HTTP_STATE_URL_FILE": str(tmp_path / "x"),
    }
    with pytest.raises(ConfigError, match="not both"):
        load_http_settings(env)
