"""Fencing, redaction, tokens and URLs in the configuration, and Berlin dates."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from sevdesk_mcp.config import is_safe_url, load_config, load_token
from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.safety.fence import MAX_UNTRUSTED_CHARS, clean, fence, hidden_characters
from sevdesk_mcp.safety.redact import Redactor, Secret
from sevdesk_mcp.sevdesk import dates
from sevdesk_mcp.sevdesk.paths import DEFAULT_API_URL

TOKEN = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("raw", "fenced"),
    [
        ("Holzwerk GmbH", "⟦Holzwerk GmbH⟧"),
        ("evil\u202eyxes\u200b", "⟦evilyxes⟧"),
        ("line one\nline two\r\n\tend", "⟦line one line two end⟧"),
        ("closing ⟧ and ⟦ opening", "⟦closing ) and ( opening⟧"),
        ("\u2066\u2069", None),
        ("   ", None),
        (None, None),
    ],
)
def test_fence_cleans_and_wraps_untrusted_text(raw: str | None, fenced: str | None) -> None:
    assert fence(raw) == fenced


def test_untrusted_text_is_capped() -> None:
    assert len(clean("x" * 5000)) == MAX_UNTRUSTED_CHARS + 1


def test_hidden_characters_are_named() -> None:
    assert hidden_characters("a\tb\u00adc\U000e0041\n") == ["U+0009", "U+00AD", "U+E0041"]
    assert hidden_characters("Grüße, 10 €\n") == []


def test_redactor_masks_registered_secrets_only() -> None:
    redact = Redactor()
    redact.add(TOKEN)
    redact.add("short")
    assert redact(f"token={TOKEN}; short") == "token=[redacted]; short"
    assert TOKEN not in repr(Secret(TOKEN)) and TOKEN not in str(Secret(TOKEN))
    assert Secret(TOKEN) == Secret(TOKEN) and hash(Secret(TOKEN)) == hash(TOKEN)
    assert Secret(TOKEN) != TOKEN


def test_token_from_the_environment_or_a_file(tmp_path: Path) -> None:
    assert load_token({}) is None
    assert load_token({"SEVDESK_API_TOKEN": f" {TOKEN} "}) == Secret(TOKEN)
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    assert load_token({"SEVDESK_API_TOKEN_FILE": str(path)}) == Secret(TOKEN)


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"SEVDESK_API_TOKEN": f"Bearer {TOKEN}"}, "no 'Bearer '"),
        ({"SEVDESK_API_TOKEN": f"SEVDESK_TOKEN={TOKEN}"}, "no NAME="),
        ({"SEVDESK_API_TOKEN": "has space inside"}, "not a sevDesk API token"),
        ({"SEVDESK_API_TOKEN": TOKEN, "SEVDESK_API_TOKEN_FILE": "/x"}, "not both"),
        ({"SEVDESK_API_TOKEN_FILE": "/nonexistent/token"}, "cannot read the file"),
    ],
)
def test_bad_tokens_stop_start_up_without_echoing_them(env: dict, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment) as info:
        load_token(env)
    assert TOKEN not in str(info.value)


def test_a_huge_token_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_bytes(b"a" * 10_000)
    with pytest.raises(ConfigError, match="too large"):
        load_token({"SEVDESK_API_TOKEN_FILE": str(path)})


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://my.sevdesk.de/api/v1", True),
        ("http://127.0.0.1:8089/api/v1", True),
        ("http://[::1]:8089/api/v1", True),
        ("http://localhost/api/v1", True),
        ("http://my.sevdesk.de/api/v1", False),
        ("http://10.0.0.1/api/v1", False),
        ("https://user:pw@my.sevdesk.de/api/v1", False),
        ("https://my.sevdesk.de/api/v1?x=1", False),
        ("https://my.sevdesk.de/api/v1#f", False),
        ("ftp://my.sevdesk.de/", False),
        ("https:///nohost", False),
    ],
)
def test_api_url_rules(url: str, safe: bool) -> None:
    assert is_safe_url(url) is safe
    if safe:
        assert load_config({"SEVDESK_API_URL": url + "/"}).api_url == url
    else:
        with pytest.raises(ConfigError, match="SEVDESK_API_URL"):
            load_config({"SEVDESK_API_URL": url})


def test_default_url_and_proxy() -> None:
    assert load_config({}).api_url == DEFAULT_API_URL
    assert load_config({"SEVDESK_PROXY": "http://proxy:3128"}).proxy == "http://proxy:3128"
    with pytest.raises(ConfigError, match="SEVDESK_PROXY"):
        load_config({"SEVDESK_PROXY": "socks5://x"})


@pytest.mark.parametrize(
    ("day", "start"),
    [
        (dt.date(2026, 7, 1), "2026-07-01T00:00:00+02:00"),
        (dt.date(2026, 1, 15), "2026-01-15T00:00:00+01:00"),
    ],
)
def test_a_day_is_a_berlin_day(day: dt.date, start: str) -> None:
    assert dates.iso_datetime(dates.berlin_midnight(day)) == start
    assert dates.unix_start(day) == int(dt.datetime.fromisoformat(start).timestamp())
    assert dates.unix_end(day) == dates.unix_start(day + dt.timedelta(days=1)) - 1
    assert dates.dotted(day) == day.strftime("%d.%m.%Y")


def test_timestamps_map_to_their_berlin_day() -> None:
    late_utc = dt.datetime(2026, 8, 31, 22, 30, tzinfo=dt.UTC)  # already 1 September in Berlin
    assert dates.berlin_date(late_utc) == dt.date(2026, 9, 1)
    assert dates.berlin_date(dt.datetime(2026, 8, 31, 23, 0)) == dt.date(2026, 8, 31)
    assert dates.berlin_date(None) is None
    assert isinstance(dates.today(), dt.date)
