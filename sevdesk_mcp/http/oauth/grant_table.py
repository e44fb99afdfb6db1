"""The rules of grants, refresh families, authorization codes and registered clients as data,
in the shape of :mod:`sevdesk_mcp.domain.lifecycle_table`. Pure: no I/O, no clock, no store.

Rule 1: a grant exists until its end (:func:`live`); an ended one is treated as absent.

Rule 2: ``ROTATE[found]`` is what a refresh does by what the one atomic compare found as the
grant's generation: ``current`` (the presented one) moves the family on; ``other`` (a
generation used already, a replayed refresh token, or a stored value failing its check)
revokes the whole family (O10); ``absent`` (no grant, revoked or ended) refuses and changes
nothing. The Redis rotating script compares inside Redis and is handed the ``other`` row
(:func:`mismatch_revokes`).

Rule 3: ``CLAIM[found]``: an authorization code is used once. The first claim (``unclaimed``)
succeeds and is remembered until the code would have expired; every later one (``claimed``) is
refused and names the grant the first redemption created, so that grant is revoked (RFC 6749
4.1.2).

Rule 4: beyond the cap of registered clients, the oldest are dropped (:func:`excess`, counted
after the new one is added; registering an id again adds none).

Rule 5: a revocation is recorded for :data:`REVOCATION_KEEP_S`.

:class:`~sevdesk_mcp.http.oauth.store.Grants` takes every decision from here over the memory,
file and Redis backends; ``tests/shared/test_grant_table_rows.py`` runs every row through all
three.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Final, Literal

REVOCATION_KEEP_S: Final = 90 * 24 * 3600
Generation = Literal["absent", "current", "other"]
Claim = Literal["unclaimed", "claimed"]


class Rotate(enum.Enum):
    """What a refresh does with the grant's family."""

    ROTATE = "rotate"  # the next generation, the end renewed
    REVOKE = "revoke"  # a replay: the family is gone
    GONE = "gone"  # nothing to do: refused


ROTATE: Final[Mapping[Generation, Rotate]] = {
    "absent": Rotate.GONE,
    "current": Rotate.ROTATE,
    "other": Rotate.REVOKE,  # used already (a replay), or failing its check
}

CLAIM: Final[Mapping[Claim, bool]] = {
    # found: the claim succeeds
    "unclaimed": True,
    "claimed": False,  # refused; the grant the first claim created is revoked
}


def live(expires: float, now: float) -> bool:
    """:returns: whether a grant ending at ``expires`` exists at ``now``."""
    return expires > now


def rotation(found: Generation) -> Rotate:
    """:returns: what a refresh does when the grant's generation was ``found``."""
    return ROTATE[found]


def generation(stored: int | None, presented: int) -> Generation:
    """:returns: how a stored generation (``None``: no live grant) compares with the
    presented one (this process; Redis compares tags inside its script)."""
    if stored is None:
        return "absent"
    return "current" if stored == presented else "other"


def mismatch_revokes() -> str:
    """:returns: ``1`` if a generation other than the presented one revokes the family, else
    ``0``: what the Redis rotating script is handed."""
    return "1" if rotation("other") is Rotate.REVOKE else "0"


def claims(found: Claim) -> bool:
    """:returns: whether a claim of a code in ``found`` succeeds."""
    return CLAIM[found]


def code_kept(expires: float, now: float) -> bool:
    """:returns: whether the claim of a code expiring at ``expires`` is still remembered."""
    return expires >= now


def excess(count: int, cap: int) -> int:
    """:returns: how many of the oldest registered clients are dropped when ``count`` are
    registered (the new one counted) under ``cap``."""
    return max(0, count - cap)


def revocation_kept(at: float, now: float) -> bool:
    """:returns: whether a revocation recorded at ``at`` is still kept at ``now``."""
    return at > now - REVOCATION_KEEP_S
