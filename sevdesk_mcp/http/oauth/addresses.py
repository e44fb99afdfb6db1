"""Which addresses a client metadata document may be fetched from (the SSRF guard's rule).

An address must be public: not private, loopback, link-local, multicast, reserved or
unspecified. IPv6 forms that carry an IPv4 address are judged by that IPv4 address, as if it
had been resolved itself:

==================  ===========================================  ======================
prefix              what it is                                   the IPv4 address
==================  ===========================================  ======================
``::ffff:0:0/96``   IPv4-mapped (RFC 4291)                        the last 32 bits
``::ffff:0:0:0/96`` IPv4-translated (SIIT, RFC 2765)              the last 32 bits
``::/96``           IPv4-compatible, deprecated (RFC 4291)        the last 32 bits
``64:ff9b::/96``    NAT64, well-known prefix (RFC 6052)           the last 32 bits
``64:ff9b:1::/48``  NAT64, local use (RFC 8215)                   the last 32 bits, the
                                                                 bits between all zero
``2002::/16``       6to4 (RFC 3056)                               bits 16 to 47
==================  ===========================================  ======================

An embedded loopback address is refused even with ``SEVDESK_HTTP_OAUTH_LOOPBACK_CLIENTS``
(that test setting means 127.0.0.1 and ::1 themselves; a translated loopback is another
machine's, or a trick). The deprecated site-local ``fec0::/10`` is refused outright, and so
is the rest of ``64:ff9b::/32`` and a local-use NAT64 address in another layout than /96:
where the IPv4 address would be cannot be known. Any other IPv6 address must be global unicast
(``2000::/3``), not reserved and not documentation (``3fff::/20`` too): ranges Python's table
of the day does not name yet are refused, not assumed public. ``::1`` is compared as itself,
not by ``is_loopback`` (which newer Pythons also answer for a mapped ``::ffff:127.0.0.1``).
"""

from __future__ import annotations

import ipaddress
from typing import Final

_MAPPED: Final = ipaddress.IPv6Network("::ffff:0:0/96")
_TRANSLATED: Final = ipaddress.IPv6Network("::ffff:0:0:0/96")
_GLOBAL_UNICAST: Final = ipaddress.IPv6Network("2000::/3")
_DOCUMENTATION_2024: Final = ipaddress.IPv6Network("3fff::/20")  # RFC 9637, newer than 3.11
_LOOPBACK: Final = ipaddress.IPv6Address("::1")
_COMPATIBLE: Final = ipaddress.IPv6Network("::/96")
_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL: Final = ipaddress.IPv6Network("64:ff9b:1::/48")
_NAT64_LOCAL_96: Final = ipaddress.IPv6Network("64:ff9b:1::/96")
_NAT64_ANY: Final = ipaddress.IPv6Network("64:ff9b::/32")
_SIX_TO_FOUR: Final = ipaddress.IPv6Network("2002::/16")
_SITE_LOCAL: Final = ipaddress.IPv6Network("fec0::/10")
_LAST_32: Final = 0xFFFFFFFF


def public_address(address: str, *, allow_loopback: bool) -> bool:
    """:returns: whether a metadata document may be fetched from ``address`` (an IP literal,
    IPv6 with or without a zone); loopback only with ``allow_loopback``.

    :raises ValueError: if ``address`` is no IP address.
    """
    ip = ipaddress.ip_address(address.partition("%")[0])
    if isinstance(ip, ipaddress.IPv4Address):
        return _public_v4(ip, allow_loopback=allow_loopback)
    if ip == _LOOPBACK:
        return allow_loopback
    if ip.is_unspecified or ip in _SITE_LOCAL:
        return False
    if _embeds_v4(ip):
        embedded = _embedded_v4(ip)
        return embedded is not None and _public_v4(embedded, allow_loopback=False)
    if ip not in _GLOBAL_UNICAST or ip in _DOCUMENTATION_2024:
        return False
    return ip.is_global and not ip.is_reserved


def _public_v4(ip: ipaddress.IPv4Address, *, allow_loopback: bool) -> bool:
    if ip.is_loopback:
        return allow_loopback
    return ip.is_global and not ip.is_multicast


def _embeds_v4(ip: ipaddress.IPv6Address) -> bool:
    nets = (_MAPPED, _TRANSLATED, _COMPATIBLE, _NAT64_ANY, _SIX_TO_FOUR)
    return any(ip in net for net in nets)


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """:returns: the IPv4 address inside ``ip``, or ``None`` where it cannot be known."""
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64_LOCAL and ip not in _NAT64_LOCAL_96:
        return None  # local-use NAT64 in another layout (RFC 6052 /48 to /64)
    if any(ip in net for net in (_MAPPED, _TRANSLATED, _COMPATIBLE, _NAT64, _NAT64_LOCAL_96)):
        return ipaddress.IPv4Address(int(ip) & _LAST_32)
    return None  # the rest of 64:ff9b::/32 is not allocated
