"""Operator commands of HTTP mode: ``healthcheck`` and ``generate-secret``."""

from __future__ import annotations

import secrets
import sys
from collections.abc import Mapping
from typing import Final

import httpx

from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.http.settings import load_http_settings

HEALTHCHECK_TIMEOUT_S: Final = 5.0
SECRET_BYTES: Final = 32
_LOCAL_FOR_WILDCARD: Final = {"0.0.0.0": "127.0.0.1", "::": "::1"}  # noqa: S104 - compared only


def generate_secret() -> int:
    """Print a new random bearer secret (256 bits, URL-safe) on stdout.

    :returns: 0.
    """
    print(secrets.token_urlsafe(SECRET_BYTES))  # noqa: T201 - the command's output
    return 0


def healthcheck(env: Mapping[str, str]) -> int:
    """Ask the local server's ``/healthz`` whether it is healthy.

    :returns: 0 if it answered ``{"status":"ok"}``, otherwise 1 (never 2: container health
        checks reserve it).
    """
    try:
        settings = load_http_settings(env)
    except ConfigError as exc:
        return _unhealthy(f"the configuration is invalid ({exc.variable})")
    host = _LOCAL_FOR_WILDCARD.get(settings.host, settings.host)
    url = f"http://{f'[{host}]' if ':' in host else host}:{settings.port}/healthz"
    try:
        response = httpx.get(url, timeout=HEALTHCHECK_TIMEOUT_S, trust_env=False)
        healthy = response.status_code == 200 and response.json() == {"status": "ok"}
    except (httpx.HTTPError, ValueError):
        return _unhealthy(f"no answer from {url}")
    return 0 if healthy else _unhealthy(f"{url} answered {response.status_code}")


def _unhealthy(reason: str) -> int:
    print(f"mcp-server-sevdesk healthcheck: unhealthy: {reason}", file=sys.stderr)  # noqa: T201
    return 1
