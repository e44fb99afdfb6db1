"""The request rules that do not depend on a route: path, Host, Origin, client address, headers.

- Paths are matched exactly and never normalized: ``/mcp/../x``, ``//mcp`` and ``/%6dcp`` are not
  ``/mcp`` (404). A path that is not origin-form, holds a broken percent escape or decodes to a
  control character (``%00``) is refused with 400.
- ``Host`` must name an allowed host (the port is not compared); anything else gets
  421 Misdirected Request: this is the DNS-rebinding guard for loopback binds.
- ``Origin`` may be absent (command-line clients send none); when present it must be one of the
  allowed origins exactly, or the request gets 403. ``Origin: null`` is never allowed.
- The client address is the socket peer, or with N trusted proxies the N-th entry of
  ``X-Forwarded-For`` from the right (each proxy appends the address it received from).
"""

from __future__ import annotations

import functools
import ipaddress
import re
from typing import Final

from sevdesk_mcp.errors import HttpError
from sevdesk_mcp.http.messages import HeaderList, Headers
from sevdesk_mcp.http.settings import Site, normalize_origin

HSTS_MAX_AGE_S: Final = 31_536_000
_ESCAPE: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
_CONTROL_ESCAPE: Final = re.compile(r"%(?:[01][0-9A-Fa-f]|7[Ff])")
_IPV6_CLIENT_PREFIX: Final = 64


def check_path(path: str) -> None:
    """Refuse paths no route could ever match safely.

    :raises HttpError: 400 for a path that is not origin-form, a broken escape or a control
        character.
    """
    if not path.startswith("/") or _ESCAPE.search(path) or _CONTROL_ESCAPE.search(path):
        raise HttpError(400, "Malformed request path.")


def host_allowed(headers: Headers, site: Site) -> bool:
    """:returns: whether the request's single ``Host`` header names an allowed host."""
    values = headers.get_all("host")
    if len(values) != 1:
        return False
    return _hostname(values[0]) in site.allowed_hosts


@functools.lru_cache(maxsize=64)  # pure and asked on every request; heads are capped
def _hostname(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        inner, _, _ = host[1:].partition("]")
        return _canonical_ip(inner)
    name, _, _ = host.partition(":")
    return _canonical_ip(name)


def _canonical_ip(name: str) -> str:
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name.rstrip(".")


def origin_allowed(headers: Headers, site: Site) -> bool:
    """:returns: whether ``Origin`` is absent or one of the allowed origins."""
    values = headers.get_all("origin")
    if not values:
        return True
    if len(values) > 1:
        return False
    return normalize_origin(values[0]) in site.allowed_origins


def client_address(peer: str, headers: Headers, trust_proxy: int) -> str:
    """:returns: the address of the client, as far as the trusted proxies vouch for it."""
    if trust_proxy == 0:
        return peer
    hops = [
        part.strip() for value in headers.get_all("x-forwarded-for") for part in value.split(",")
    ]
    address = peer
    for hop in reversed(hops[-trust_proxy:]):
        try:
            address = str(ipaddress.ip_address(hop))
        except ValueError:
            break  # a proxy wrote garbage: keep the last address a trusted hop vouched for
    return address


@functools.lru_cache(maxsize=1024)  # pure, and asked on every request
def client_key(address: str) -> str:
    """:returns: the rate-limit key of an address: itself for IPv4, its /64 for IPv6."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, _IPV6_CLIENT_PREFIX), strict=False))
    return str(ip)


def security_headers(site: Site) -> HeaderList:
    """:returns: the headers sent on every response."""
    headers = [
        ("x-content-type-options", "nosniff"),
        ("cache-control", "no-store, no-transform"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
        ("content-security-policy", "default-src 'none'; frame-ancestors 'none'"),
    ]
    if site.https:
        headers.append(("strict-transport-security", f"max-age={HSTS_MAX_AGE_S}"))
    return headers
