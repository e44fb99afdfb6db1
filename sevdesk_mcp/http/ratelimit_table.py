"""The rule of a token bucket as data, in the shape of
:mod:`sevdesk_mcp.domain.lifecycle_table`. Pure: no I/O, no clock, no store.

Rule 1: a bucket nobody took from yet is full (``rate_burst`` tokens); it refills at
``rate_per_s`` up to the burst (:func:`refill`; time never runs backwards).

Rule 2: ``TAKE[enough]``: a request takes one token while at least one is left
(:func:`take`); otherwise nothing is taken and the client is told the whole seconds until the
next token, at least one (:func:`wait_s`).

Rule 3: a bucket left alone is forgotten once it would be full again, and a second more
(:func:`keep_ms`): a forgotten bucket is a full one, so forgetting changes no answer.

:class:`~sevdesk_mcp.http.ratelimit.RateLimiter` (this process) applies these functions; the
Redis take script (:mod:`~sevdesk_mcp.http.ratelimit_shared`) computes on Redis's clock for
atomicity and is handed its parameters from here (:func:`script_args`);
``tests/shared/test_ratelimit_table_rows.py`` runs every row through both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from sevdesk_mcp.http.limits import Limits

TAKE: Final[Mapping[bool, bool]] = {
    # at least one token left: the request proceeds (one token taken)
    True: True,
    False: False,  # told to wait; nothing taken
}


def refill(tokens: float, elapsed_s: float, rate: float, burst: float) -> float:
    """:returns: the tokens of a bucket holding ``tokens`` after ``elapsed_s`` seconds."""
    return min(burst, tokens + max(0.0, elapsed_s) * rate)


def wait_s(tokens: float, rate: float) -> int:
    """:returns: the whole seconds until a bucket holding ``tokens`` has one, at least 1."""
    return max(1, math.ceil((1.0 - tokens) / rate))


def take(tokens: float, rate: float) -> tuple[float, int | None]:
    """:returns: the tokens left after a request, and ``None`` if it proceeds, else the
    seconds to wait (Rule 2)."""
    if TAKE[tokens >= 1.0]:
        return tokens - 1.0, None
    return tokens, wait_s(tokens, rate)


def keep_ms(limits: Limits) -> int:
    """:returns: how long a bucket left alone is kept (Rule 3)."""
    return math.ceil(limits.rate_burst / limits.rate_per_s * 1000) + 1000


def script_args(limits: Limits) -> tuple[str, str, str]:
    """:returns: what the Redis take script is handed: rate, burst and :func:`keep_ms`."""
    return repr(float(limits.rate_per_s)), str(limits.rate_burst), str(keep_ms(limits))
