"""Which sevDesk account a token belongs to: ``GET /SevClient``, the only call the transports
make themselves (OAuth mode at consent and at refresh, bearer mode once at start-up), and the
``account-id`` command."""

from __future__ import annotations

import sys
from collections.abc import Mapping

import anyio
import httpx
import msgspec

from sevdesk_mcp.config import load_config, load_token
from sevdesk_mcp.errors import ConfigError, MalformedResponseError, UpstreamError
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.envelope import many
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer

MAX_NAME_CHARS = 200


class Identity(msgspec.Struct, frozen=True, kw_only=True):
    """A sevDesk account: its id (the key of everything it owns here) and its name."""

    id: str
    name: str


class IdentityLookup:
    """Looks up the account of a token at one API root.

    :param api_url: the sevDesk API root (``SEVDESK_API_URL``).
    :param transport: an httpx transport (the fake sevDesk's in tests); the network otherwise.
    """

    def __init__(
        self,
        api_url: str,
        *,
        proxy: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.api_url = api_url
        self._proxy = proxy
        self._transport = transport

    def client(
        self, token: Secret, gate: WriteGate | None = None, pacer: Pacer | None = None
    ) -> SevdeskClient:
        """:returns: a sevDesk client for ``token`` at this API root (read-only by default)."""
        return SevdeskClient(
            base_url=self.api_url,
            token=token,
            gate=gate or WriteGate(tiers=frozenset({Tier.READ}), read_only=True),
            pacer=pacer,
            proxy=self._proxy,
            transport=self._transport,
        )

    async def __call__(self, token: Secret) -> Identity:
        """:returns: the account ``token`` belongs to.

        :raises AuthenticationError: if sevDesk refuses the token.
        :raises UpstreamError: if sevDesk cannot be asked, or answers something else.
        """
        client = self.client(token)
        try:
            return await read_identity(client)
        finally:
            await client.aclose()


async def read_identity(client: SevdeskClient) -> Identity:
    """:returns: the account ``client``'s token belongs to (``GET /SevClient``, one request):
    at consent and refresh in OAuth mode, and once at start-up in bearer mode.

    sevDesk has no "who am I" for the user behind a token (``GET /SevUser`` lists the
    company's users), so an identity names the company, never a user.

    :raises AuthenticationError: if sevDesk refuses the token.
    :raises UpstreamError: if sevDesk cannot be asked, or names no account.
    """
    objects = many(await client.get("/SevClient"))
    if not objects or objects[0].get("id") in (None, ""):
        raise MalformedResponseError("sevDesk named no account for this token (GET /SevClient).")
    first = objects[0]
    name = first.get("name")
    return Identity(
        id=str(first["id"]), name=str(name)[:MAX_NAME_CHARS] if name is not None else ""
    )


def account_id(env: Mapping[str, str]) -> int:
    """``account-id``: print the sevDesk account id and name of ``SEVDESK_API_TOKEN``.

    :returns: 0, or 1 if sevDesk cannot tell.
    :raises ConfigError: if no token or an invalid setting is configured.
    """
    config = load_config(env)
    token = load_token(env)
    if token is None:
        raise ConfigError("SEVDESK_API_TOKEN", "set it (or SEVDESK_API_TOKEN_FILE) to the token")
    lookup = IdentityLookup(config.api_url, proxy=config.proxy)
    try:
        identity = anyio.run(lookup, token)
    except UpstreamError as exc:
        print(f"mcp-server-sevdesk account-id: {exc}", file=sys.stderr)  # noqa: T201
        return 1
    print(f"{identity.id}\t{identity.name}")  # noqa: T201 - the command's output
    return 0
