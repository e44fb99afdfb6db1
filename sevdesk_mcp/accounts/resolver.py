"""The account resolver of OAuth mode: one account context per grant, cached.

Rules:

1. A context is a frozen :class:`~sevdesk_mcp.config.Config` (the grant's tiers intersected with
   ``SEVDESK_ALLOW``, no local folders, no browser opening) and a sevDesk client with the
   grant's token.
2. Every context of one sevDesk account shares one pacer, so two grants of one account cannot
   together send more than the account's pace; contexts of different accounts share nothing.
3. Contexts are cached by grant: at most :data:`MAX_CONTEXTS`, each dropped after
   :data:`IDLE_S` without a request (its connections are closed).
4. The principal of a context is ``oauth:<account>:<grant>``: approvals, request state and
   audit lines are bound to it (ids only, never a token).
"""

from __future__ import annotations

import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, Protocol

from msgspec.structs import replace

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.accounts.identity import IdentityLookup
from sevdesk_mcp.config import Config
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import DEFAULT_TIERS, Tier
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer, pacer_for

MAX_CONTEXTS: Final = 64
IDLE_S: Final = 15 * 60.0


class GrantedAccess(Protocol):
    """What a valid access token vouches for (the OAuth verifier's ``GrantedAccess``).

    ``grant`` is the grant id, ``account`` the sevDesk account id, ``tiers`` the grant's tiers,
    ``token`` the user's sevDesk token, ``principal`` ``oauth:<account>:<grant>``.
    """

    @property
    def grant(self) -> str: ...

    @property
    def account(self) -> str: ...

    @property
    def tiers(self) -> frozenset[Tier]: ...

    @property
    def token(self) -> Secret: ...

    @property
    def principal(self) -> str: ...


def grant_config(config: Config, tiers: frozenset[Tier]) -> Config:
    """:returns: the frozen configuration of a grant with ``tiers``."""
    allowed = DEFAULT_TIERS if config.read_only else (tiers & config.tiers) | DEFAULT_TIERS
    return replace(config, tiers=frozenset(allowed), output_dir=None, confirm_open=False)


class AccountResolver:
    """Gives each grant its account context.

    :param lookup: builds the sevDesk clients (API root, proxy, transport).
    :param clock: monotonic seconds (injected by tests).
    :param pacers: makes the pacer of a sevDesk account at a rate (one in this process by
        default; several HTTP instances share one per account on the shared state).
    """

    def __init__(
        self,
        config: Config,
        lookup: IdentityLookup,
        *,
        clock: Callable[[], float] = time.monotonic,
        pacers: Callable[[str, float], Pacer] | None = None,
    ) -> None:
        self._config = config
        self._new_pacer = pacers or (lambda _account, rate: pacer_for(rate))
        self._lookup = lookup
        self._clock = clock
        self._contexts: OrderedDict[str, tuple[AccountContext, float]] = OrderedDict()
        self._pacers: weakref.WeakValueDictionary[str, Pacer] = weakref.WeakValueDictionary()

    def __len__(self) -> int:
        return len(self._contexts)

    async def context(self, access: GrantedAccess) -> AccountContext:
        """:returns: the context of ``access``'s grant, cached (rule 3)."""
        now = self._clock()
        cached = self._contexts.pop(access.grant, None)
        context = cached[0] if cached is not None and now - cached[1] < IDLE_S else None
        if context is None:
            context = self._build(access)
        self._contexts[access.grant] = (context, now)
        await self._evict(now)
        return context

    def forget(self, grant: str) -> None:
        """Drop a revoked grant's context at once."""
        self._contexts.pop(grant, None)

    def _build(self, access: GrantedAccess) -> AccountContext:
        config = grant_config(self._config, access.tiers)
        gate = WriteGate(tiers=config.tiers, read_only=config.read_only, dry_run=config.dry_run)
        client = self._lookup.client(access.token, gate, self._pacer(access.account, config))
        return AccountContext(
            config=config, principal=access.principal, client=client, account=access.account
        )

    def _pacer(self, account: str, config: Config) -> Pacer:
        pacer = self._pacers.get(account)
        if pacer is None:
            pacer = self._new_pacer(account, config.rate_per_s)
            self._pacers[account] = pacer
        return pacer

    async def _evict(self, now: float) -> None:
        stale = [g for g, (_, used) in self._contexts.items() if now - used >= IDLE_S]
        while len(self._contexts) - len(stale) > MAX_CONTEXTS:
            stale.append(next(g for g in self._contexts if g not in stale))
        for grant in stale:
            context, _ = self._contexts.pop(grant)
            if context.client is not None:
                await context.client.aclose()
