"""Multi-round-trip requests: one handler, two eras.

A handler of ``tools/call``, ``prompts/get`` or ``resources/read`` may return
:class:`InputRequired` instead of a result.

- 2026-07-28: the core answers ``resultType: "input_required"`` with ``inputRequests`` and a sealed
  ``requestState``; the client retries with ``inputResponses`` and the state, which the core opens
  (bound to method, target, principal and arguments) before the handler sees it again.
- 2025 era: the legacy shim sends each input request as a real ``elicitation/create`` on the
  connection, waits (with a timeout) for the answers and re-enters the same handler, up to a
  fixed number of rounds. Transports without server-to-client requests cannot be served.

Input requests are only made for capabilities the client declared for this request. Besides
forms, a handler may ask for ``sampling/createMessage`` and ``roots/list``
(``InputRequired.client_requests``); their answers reach it unparsed in ``ctx.input_results``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from msgspec import UNSET

from sevdesk_mcp.errors import MISSING_CLIENT_CAPABILITY, PeerRequestError, ProtocolError
from sevdesk_mcp.errors import InputUnavailableError as InputUnavailableError  # noqa: PLC0414
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.envelope import InteractiveParams
from sevdesk_mcp.mcp.state import Binding
from sevdesk_mcp.mcp.types import ElicitResponse, InputRequired, JsonObject, JsonValue

R = TypeVar("R")
Invoke = Callable[[RequestContext], Awaitable["R | InputRequired"]]


def parse_responses(raw: JsonValue) -> dict[str, ElicitResponse]:
    """:returns: the well-formed ``inputResponses``; malformed entries are dropped (re-asked)."""
    if not isinstance(raw, dict):
        return {}
    out: dict[str, ElicitResponse] = {}
    for key, value in raw.items():
        answer = parse_elicit_result(value)
        if answer is not None:
            out[key] = answer
    return out


def parse_elicit_result(value: JsonValue) -> ElicitResponse | None:
    """:returns: the ``ElicitResult`` in ``value``, or ``None`` if it is not one."""
    if not isinstance(value, dict):
        return None
    action, content = value.get("action"), value.get("content", {})
    if not isinstance(content, dict):
        return None
    if action == "accept":
        return ElicitResponse(action="accept", content=content)
    if action in ("decline", "cancel"):
        return ElicitResponse(action="decline" if action == "decline" else "cancel")
    return None


async def run_modern(
    app: McpApp,
    ctx: RequestContext,
    binding: Binding,
    params: InteractiveParams,
    invoke: Invoke[R],
) -> R | JsonObject:
    """Serve one 2026-07-28 leg.

    :returns: the handler's result, or the wire form of an ``input_required`` result.
    :raises InvalidRequestStateError: if the echoed ``requestState`` does not verify.
    :raises ProtocolError: -32021 if the client did not declare a capability the input requests
        need (form elicitation, sampling, roots).
    """
    raw = None if params.input_responses is UNSET else params.input_responses
    if params.request_state is not UNSET:
        state = app.codec.open(params.request_state, binding)
        ctx = ctx.with_input(parse_responses(raw), state, _raw_results(raw))
    elif params.input_responses is not UNSET:
        ctx = ctx.with_input(parse_responses(raw), None, _raw_results(raw))
    outcome = await invoke(ctx)
    if not isinstance(outcome, InputRequired):
        return outcome
    _require_capabilities(ctx, outcome)
    requests: JsonObject = {
        key: {"method": "elicitation/create", "params": form.to_params(with_mode=True)}
        for key, form in outcome.requests.items()
    }
    for key, request in outcome.client_requests.items():
        requests[key] = {"method": request.method, "params": request.params}
    return {
        "resultType": "input_required",
        "inputRequests": requests,
        "requestState": app.codec.seal(outcome.state, binding),
    }


def _raw_results(raw: JsonValue) -> dict[str, JsonObject]:
    """:returns: the object-valued ``inputResponses`` as sent (answers to sampling and roots)."""
    if not isinstance(raw, dict):
        return {}
    return {key: value for key, value in raw.items() if isinstance(value, dict)}


def _require_capabilities(ctx: RequestContext, outcome: InputRequired) -> None:
    missing: JsonObject = {}
    if (outcome.requests or not outcome.client_requests) and not ctx.can_elicit_form():
        missing["elicitation"] = {"form": {}}
    for request in outcome.client_requests.values():
        if not ctx.declares(request.capability):
            missing[request.capability] = {}
    if not missing:
        return
    needed = "form elicitation" if list(missing) == ["elicitation"] else ", ".join(missing)
    raise ProtocolError(
        MISSING_CLIENT_CAPABILITY,
        f"This request needs {needed}, which the client did not declare",
        {"requiredCapabilities": missing},
    )


async def run_legacy(app: McpApp, ctx: RequestContext, invoke: Invoke[R]) -> R:
    """Serve a 2025-era request, fulfilling input requests over the connection.

    :raises InputUnavailableError: if the client cannot be asked, does not answer in time,
        answers with an error, or the rounds run out.
    """
    for _ in range(app.max_input_rounds):
        outcome = await invoke(ctx)
        if not isinstance(outcome, InputRequired):
            return outcome
        responses = await _ask(app, ctx, outcome)
        results = await _ask_client(app, ctx, outcome)
        ctx = ctx.with_input(responses, outcome.state, results)
    raise InputUnavailableError(
        f"The request still needed input after {app.max_input_rounds} rounds; nothing was changed."
    )


async def _ask_client(
    app: McpApp, ctx: RequestContext, outcome: InputRequired
) -> dict[str, JsonObject]:
    """Send the sampling and roots requests as real requests to the client."""
    results: dict[str, JsonObject] = {}
    for key, request in outcome.client_requests.items():
        if not ctx.peer.can_request or not ctx.declares(request.capability):
            raise InputUnavailableError(
                f"This request needs {request.capability} from the client, which it did not "
                "declare for this connection (or cannot be asked here); nothing was changed."
            )
        try:
            results[key] = await ctx.peer.request(
                request.method, request.params, app.elicitation_timeout_s
            )
        except PeerRequestError as exc:
            raise InputUnavailableError(f"{exc} Nothing was changed.") from exc
    return results


async def _ask(
    app: McpApp, ctx: RequestContext, outcome: InputRequired
) -> dict[str, ElicitResponse]:
    if not outcome.requests and outcome.client_requests:
        return {}  # only sampling or roots: asked by _ask_client
    if not ctx.peer.can_request:
        raise InputUnavailableError(
            "This action needs a human decision, but this connection cannot carry a question "
            f"to the client: the server serves protocol {ctx.protocol_version} here without a "
            "session (stateless HTTP), whatever the client declared. Keep the session the "
            "server issued (Mcp-Session-Id; the operator may have turned sessions off with "
            "SEVDESK_HTTP_SESSIONS=off), use a client that speaks protocol 2026-07-28, or the "
            "server over stdio; nothing was changed."
        )
    if not ctx.can_elicit_form():
        raise InputUnavailableError(
            "This action needs a human decision, but this client cannot be asked (it did not "
            f"declare form elicitation for this connection). {app.legacy_elicitation_hint}"
        )
    with_mode = ctx.protocol_version != "2025-06-18"
    answers: dict[str, ElicitResponse] = {}
    for key, form in outcome.requests.items():
        try:
            raw = await ctx.peer.request(
                "elicitation/create", form.to_params(with_mode=with_mode), app.elicitation_timeout_s
            )
        except PeerRequestError as exc:
            raise InputUnavailableError(f"{exc} Nothing was changed.") from exc
        answer = parse_elicit_result(raw)
        if answer is None:
            raise InputUnavailableError(
                "The client answered the question with a malformed result; nothing was changed."
            )
        answers[key] = answer
    return answers
