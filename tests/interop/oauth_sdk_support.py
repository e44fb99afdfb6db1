"""The official Python SDK's OAuth client against OAuth mode: a loopback https server for the
client's metadata document, token storage, and the consent step without a browser."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import ssl
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from tests.http.oauth_support import form_fields, redirect_params

CALLBACK = "http://127.0.0.1:9/callback"


def certificate(folder: Path) -> tuple[Path, Path]:
    """:returns: a self-signed certificate for 127.0.0.1 and its key (PEM files)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@dataclass
class DocumentServer:
    """An https server on 127.0.0.1 serving one client metadata document."""

    url: str
    document: dict[str, Any]
    trust: ssl.SSLContext
    fetches: list[str] = field(default_factory=list)
    status: int = 200
    content_type: str = "application/json"
    cache_control: str = "max-age=60"
    body: bytes | None = None  # instead of the document
    headers: dict[str, str] = field(default_factory=dict)


@contextmanager
def document_server(folder: Path, redirect_uri: str = CALLBACK) -> Iterator[DocumentServer]:
    cert, key = certificate(folder)
    served: list[DocumentServer] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server = served[0]
            server.fetches.append(self.path)
            body = server.body if server.body is not None else json.dumps(server.document).encode()
            self.send_response(server.status)
            self.send_header("content-type", server.content_type)
            self.send_header("cache-control", server.cache_control)
            for name, value in server.headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    url = f"https://127.0.0.1:{httpd.server_address[1]}/oauth/client.json"
    document = {
        "client_id": url,
        "client_name": "SDK Test Client",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    served.append(DocumentServer(url, document, ssl.create_default_context(cafile=str(cert))))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield served[0]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


class MemoryStorage:
    """The SDK's token storage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


Consent = Callable[[str], Awaitable[str]]


def consent_with_httpx(token: str, tiers: tuple[str, ...] = ("write",)) -> Consent:
    """:returns: a consent step that posts the form with httpx; it :returns: the redirect."""

    async def approve(url: str) -> str:
        async with httpx.AsyncClient(timeout=60, trust_env=False) as http:
            page = await http.get(url)
            assert page.status_code == 200, page.text
            form = {**form_fields(page.text), "sevdesk_token": token, "decision": "allow"}
            form.update({f"tier_{t}": "on" for t in tiers})
            base = url.split("/authorize", 1)[0]
            answer = await http.post(f"{base}/authorize", data=form)
        redirect_params(answer)  # checks a 303 with each parameter once
        return answer.headers["location"]

    return approve


def provider(
    mcp_url: str,
    storage: MemoryStorage,
    consent: Consent,
    *,
    client_metadata_url: str | None = None,
    redirect_uri: str = CALLBACK,
) -> OAuthClientProvider:
    """:returns: the SDK's OAuth provider, its browser replaced by ``consent``."""
    redirects: list[str] = []

    async def redirect_handler(url: str) -> None:
        redirects.append(await consent(url))

    async def callback_handler() -> AuthorizationCodeResult:
        params = redirect_params_from(redirects.pop())
        return AuthorizationCodeResult(
            code=params["code"], state=params.get("state"), iss=params.get("iss")
        )

    metadata = OAuthClientMetadata(
        redirect_uris=[redirect_uri],
        client_name="SDK Test Client",
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
        scope="sevdesk:read sevdesk:write",
    )
    return OAuthClientProvider(
        mcp_url,
        metadata,
        storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=client_metadata_url,
    )


def redirect_params_from(location: str) -> dict[str, str]:
    from urllib.parse import parse_qs, urlsplit

    query = parse_qs(urlsplit(location).query)
    return {k: v[0] for k, v in query.items()}
