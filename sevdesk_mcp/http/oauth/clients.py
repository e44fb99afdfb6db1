"""Who a ``client_id`` is: a Client ID Metadata Document (an https URL) or a registered client.

Redirect URIs are matched by ``redirects``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from sevdesk_mcp.errors import UnsafeClientError
from sevdesk_mcp.http.oauth.cimd import CimdFetcher
from sevdesk_mcp.http.oauth.store import GrantStore


class Client(msgspec.Struct, frozen=True, kw_only=True):
    """A client as the authorization server knows it.

    :param host: the host of a metadata-document client id (shown on the consent page and
        checked against the allowlist); ``None`` for registered clients.
    """

    client_id: str
    client_name: str
    redirect_uris: tuple[str, ...]
    kind: Literal["document", "registered"]
    host: str | None = None


class ClientResolver:
    """Resolves ``client_id`` values.

    :param hosts: the hosts whose metadata documents are accepted, or ``None`` for any.
    """

    def __init__(
        self, store: GrantStore, fetcher: CimdFetcher, hosts: frozenset[str] | None
    ) -> None:
        self._store = store
        self._fetcher = fetcher
        self._hosts = hosts

    async def resolve(self, client_id: str) -> Client:
        """:returns: the client.

        :raises UnsafeClientError: if it is unknown, not allowed, or its document is unusable.
        """
        if client_id.startswith("https://"):
            host = self._fetcher.check_url(client_id)
            if not self.host_allowed(host):
                raise UnsafeClientError(
                    f"Clients from {host} are not allowed here; the operator can add the host "
                    "to SEVDESK_HTTP_OAUTH_CLIENT_HOSTS."
                )
            document = await self._fetcher.fetch(client_id)
            return Client(
                client_id=client_id,
                client_name=document.client_name,
                redirect_uris=tuple(document.redirect_uris),
                kind="document",
                host=host,
            )
        registered = await self._store.client(client_id)
        if registered is None:
            raise UnsafeClientError(
                "This client_id is unknown here. Register the client again (its registration "
                "may have been made at another server) or use a client metadata document URL."
            )
        return Client(
            client_id=registered.client_id,
            client_name=registered.client_name,
            redirect_uris=registered.redirect_uris,
            kind="registered",
        )

    def host_allowed(self, host: str | None) -> bool:
        """:returns: whether a metadata-document client from ``host`` may be used (always for
        registered clients, whose host is ``None``)."""
        return host is None or self._hosts is None or host in self._hosts
