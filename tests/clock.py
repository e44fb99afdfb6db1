"""A clock a test moves: seconds since the epoch, read by calling it (the ``clock`` the stores,
the pages and the OAuth server take)."""

from __future__ import annotations

import time


class Clock:
    """Seconds that stand still until the test moves them (now, unless a start is given)."""

    def __init__(self, now: float | None = None) -> None:
        self.now = time.time() if now is None else now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward."""
        self.now += seconds
