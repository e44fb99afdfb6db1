"""The one exception tree of the project.

::

    SevdeskMcpError
    ├── ConfigError            a setting is invalid; start-up stops with one line on stderr
    ├── StartupError           start-up cannot go on (cannot listen, no demo books); one line
    │   └── KeychainError      the OS keychain cannot be used (no backend, or it refused)
    ├── ProtocolError          a JSON-RPC error answer (code, message, data)
    │   ├── InvalidRequestStateError   a sealed requestState failed verification
    │   └── ResourceNotFoundError      resources/read named an unknown URI
    ├── PeerRequestError       a request to the client failed (error answer, closed, timeout)
    ├── InputUnavailableError  a 2025-era request needs input the client or transport cannot give
    ├── ToolDefinitionError    a tool is declared wrongly, or the tool index disagrees with the code
    ├── ToolError              a tool call failed with a trusted, actionable message
    │   ├── ToolInputError     the arguments do not fit the tool's input schema
    │   │   └── EInvoiceRefusedError   an e-invoice file is refused before or while parsing
    │   ├── TierDeniedError    the tool's tier is not enabled in this configuration
    │   ├── StateUnavailableError   the shared state (Redis) cannot be reached: nothing was done
    │   └── PreconditionError  (domain.errors) a record does not allow the action: what, which
    │                          record, which field, and the next step as data; tools/ name the tool
    ├── UpstreamError          a sevDesk request failed (the message is trusted and actionable)
    │   ├── UnavailableError   sevDesk could not be reached, or answered 5xx
    │   ├── UpstreamTimeoutError   a read ran out of time
    │   ├── OutcomeUnknownError    a write was sent and its outcome is unknown: never retried
    │   ├── RateLimitedError   sevDesk answered 429 and the wait does not fit
    │   ├── RejectedError      sevDesk refused the request (4xx, or an error inside HTTP 200)
    │   │   ├── AuthenticationError   401/403: the API token is wrong or revoked
    │   │   ├── NotFoundError         404 or sevDesk error code 151
    │   │   └── UpstreamValidationError   400/422, or a validation error sent as HTTP 500
    │   └── MalformedResponseError    the answer is not what sevDesk sends
    ├── SafetyError            a safety control refused an action
    │   └── WriteRefusedError  the write gate refused a request before it was sent
    ├── HttpError              an HTTP request refused before a handler answers (HTTP mode)
    ├── FormError              a page's form or query is not strict (a field twice, not UTF-8)
    ├── OAuthError             an OAuth request refused with an RFC 6749 error code (OAuth mode)
    │   └── UnsafeClientError  a client (its metadata document or registration) is refused
    └── InvalidTokenError      a sealed token does not open: one opaque reason for every cause

Every message is written for the person reading it: it says what was wrong and how to fix it,
and never contains a secret or untrusted text from sevDesk.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.jsontypes import JsonObject

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
RESOURCE_NOT_FOUND_2025: Final = -32002
HEADER_MISMATCH: Final = -32020
MISSING_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022


class SevdeskMcpError(Exception):
    """Root of every error this package raises on purpose."""


class ConfigError(SevdeskMcpError):
    """A configuration value is invalid.

    :param variable: the environment variable (or option) at fault.
    :param message: what is wrong and which values are allowed.
    """

    def __init__(self, variable: str, message: str) -> None:
        super().__init__(f"{variable}: {message}")
        self.variable = variable


class StartupError(SevdeskMcpError):
    """Start-up cannot continue; the message is the one line to print."""


class ProtocolError(SevdeskMcpError):
    """An error that is answered as a JSON-RPC ``error`` object.

    :param code: the JSON-RPC error code.
    :param message: a trusted, actionable message.
    :param data: optional structured data defined by the MCP specification.
    """

    def __init__(self, code: int, message: str, data: JsonObject | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class InvalidRequestStateError(ProtocolError):
    """A ``requestState`` was tampered with, expired, or belongs to another request."""

    def __init__(self) -> None:
        super().__init__(
            INVALID_PARAMS,
            "Invalid or expired requestState",
            {"reason": "invalid_request_state"},
        )


class ResourceNotFoundError(ProtocolError):
    """``resources/read`` named a URI that does not exist (-32602 on 2026, -32002 on 2025)."""

    def __init__(self, uri: str) -> None:
        super().__init__(INVALID_PARAMS, "Resource not found", {"uri": uri})
        self.uri = uri


class PeerRequestError(SevdeskMcpError):
    """A request to the client failed: it answered with an error, closed, or is unable."""


class InputUnavailableError(SevdeskMcpError):
    """A 2025-era request needs input that this client or transport cannot give."""


class ToolDefinitionError(SevdeskMcpError):
    """A tool definition breaks a rule of ``define_tool`` (names, schemas, annotations), or the
    tool index disagrees with the code or cannot be read (``tools/lazy.py``)."""


class ToolError(SevdeskMcpError):
    """A tool call failed; the message is shown to the model as an ``isError`` result."""


class ToolInputError(ToolError):
    """The arguments of a tool call do not fit the tool's input schema."""


class FileAccessError(ToolInputError):
    """A local file cannot be read: outside the configured folders, not a regular file, too
    large, of a type we do not take, changed while being read, or no folders in this mode; or
    a file cannot be written to the output folder."""


class EInvoiceRefusedError(ToolInputError):
    """An e-invoice (XML or PDF) is refused: unsafe, too large, malformed, or not an invoice.

    The message names the reason and how to fix it; it never quotes the file's content.

    :param reason: one word: ``size``, ``dtd``, ``entity``, ``external``, ``depth``,
        ``not_wellformed``, ``encoding``, ``not_invoice``, ``number``, ``date``, ``pdf``,
        ``encrypted``, ``objects``, ``inflate``, ``no_attachment`` or ``attachments``.
    :param message: what was wrong and what to do.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class TransferRefusedError(ToolError):
    """A file transfer over HTTP is refused: an unknown, expired, used or foreign reference or
    link, a file too large or of another type than it claims, or a limit reached. The message
    names what was wrong and what to do."""


class StateUnavailableError(ToolError):
    """The shared state of several HTTP instances (``SEVDESK_HTTP_STATE_URL``, Redis) cannot be
    reached or answered out of time. Nothing that needs state was done; the server never falls
    back to state of its own process. Over HTTP outside a tool call it is answered with 503."""


class TierDeniedError(ToolError):
    """The tool's tier is not enabled by the configuration."""


class UpstreamError(SevdeskMcpError):
    """A sevDesk request failed. The message is ours; sevDesk's own wording is only fenced."""


class UnavailableError(UpstreamError):
    """sevDesk could not be reached (connect, DNS, TLS, reset) or answered 5xx."""


class UpstreamTimeoutError(UpstreamError):
    """A read did not complete within its time budget."""


class OutcomeUnknownError(UpstreamError):
    """A request that changes data was sent, and no answer arrived: it may have been applied."""


class RateLimitedError(UpstreamError):
    """sevDesk answered 429 and waiting for it does not fit the call's budget.

    :param retry_after_s: the wait sevDesk asked for, if any.
    """

    def __init__(self, message: str, retry_after_s: float | None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class RejectedError(UpstreamError):
    """sevDesk refused the request.

    :param status: the HTTP status (200 for errors sevDesk sends inside a success status).
    :param code: sevDesk's own error code, if it sent one.
    """

    def __init__(self, message: str, *, status: int, code: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class AuthenticationError(RejectedError):
    """sevDesk refused the API token (401 or 403). Final: never retried."""


class NotFoundError(RejectedError):
    """The object does not exist in this sevDesk account."""


class UpstreamValidationError(RejectedError):
    """sevDesk refused the data (400, 422, or a validation error sent as HTTP 500)."""


class MalformedResponseError(UpstreamError):
    """The answer is not JSON of the shape sevDesk sends, or exceeds the size cap."""


class SafetyError(SevdeskMcpError):
    """A safety control refused an action."""


class WriteRefusedError(SafetyError):
    """The write gate refused a request before it was sent."""


class RehearsalRefusedError(WriteRefusedError):
    """A rehearsal's guard refused to send a request that is not a plain read to sevDesk;
    nothing was sent (a rehearsal never writes to sevDesk)."""


class DownloadRefusedError(SafetyError):
    """A file link from sevDesk was not followed: another host, credentials in the link, a
    redirect, or a file over the size cap. Nothing was downloaded."""


class HttpError(SevdeskMcpError):
    """An HTTP request is refused before a handler answers it (HTTP mode only).

    Raised inside ``sevdesk_mcp.http`` and answered there; it never leaves that package.

    :param status: the HTTP status to answer (400, 408, 413, 414, 429, 431, ...).
    :param message: a short, trusted explanation for the response body.
    :param headers: extra response headers, such as ``Retry-After`` or ``WWW-Authenticate``.
    """

    def __init__(
        self, status: int, message: str, headers: tuple[tuple[str, str], ...] = ()
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


class FormError(SevdeskMcpError):
    """A form body or query string is refused by the page kit's reader (``http.kit.forms``): a
    field given twice, too many fields, a control character, not UTF-8, another media type.

    Raised inside ``sevdesk_mcp.http``; pages answer it as a refusal, the OAuth endpoints as
    ``invalid_request`` with this message.
    """


class OAuthError(SevdeskMcpError):
    """An OAuth request is refused (RFC 6749 section 5.2 and 4.1.2.1; OAuth mode only).

    :param error: the error code, such as ``invalid_request`` or ``invalid_grant``.
    :param description: what was wrong and how to fix it (never a secret, never client text).
    :param status: the HTTP status when answered as JSON (400; 401 for ``invalid_client``).
    """

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(f"{error}: {description}")
        self.error = error
        self.description = description
        self.status = status


class UnsafeClientError(OAuthError):
    """A client cannot be used: its metadata document could not be fetched safely or is
    invalid, or its registration is refused. Never answered by a redirect."""

    def __init__(self, description: str, error: str = "invalid_client") -> None:
        super().__init__(error, description)


class InvalidTokenError(SevdeskMcpError):
    """A sealed token does not open or is no longer valid.

    One opaque error for every cause (bad encoding, another key or purpose, a flipped bit,
    truncation, expiry), so the answer is no oracle; only the audit log learns the reason.
    """


class KeychainError(StartupError):
    """The OS keychain cannot be used: no backend (headless Linux), or it refused the request.

    The message says which and what to use instead; it never holds the token.
    """
