"""Prompts, resources, completions and media of the conformance fixture server.

Names and texts are the ones the conformance scenarios check (wire digest section 6.3).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from typing import Any

from sevdesk_mcp.errors import INVALID_PARAMS, ProtocolError, ResourceNotFoundError
from sevdesk_mcp.mcp.context import RequestContext
from sevdesk_mcp.mcp.types import ElicitForm, InputRequired, JsonObject

# A 1x1 red PNG and a 10 ms silent 8 kHz mono WAV.
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


def _wav_b64() -> str:
    samples = b"\x80" * 80
    header = b"RIFF" + struct.pack("<I", 36 + len(samples)) + b"WAVEfmt "
    header += struct.pack("<IHHIIHH", 16, 1, 1, 8000, 8000, 1, 8)
    return base64.b64encode(header + b"data" + struct.pack("<I", len(samples)) + samples).decode()


WAV_B64 = _wav_b64()


def text(value: str) -> JsonObject:
    """:returns: a text content block."""
    return {"type": "text", "text": value}


def image() -> JsonObject:
    """:returns: an image content block (PNG)."""
    return {"type": "image", "data": PNG_B64, "mimeType": "image/png"}


def form(message: str, properties: dict[str, Any], required: list[str]) -> ElicitForm:
    """:returns: a form elicitation."""
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    return ElicitForm(message=message, requested_schema=schema)


def _user(content: JsonObject) -> JsonObject:
    return {"role": "user", "content": content}


_PROMPTS: list[JsonObject] = [
    {"name": "test_simple_prompt", "description": "A simple prompt without arguments"},
    {
        "name": "test_prompt_with_arguments",
        "description": "A prompt with two required arguments",
        "arguments": [
            {"name": "arg1", "description": "First test argument", "required": True},
            {"name": "arg2", "description": "Second test argument", "required": True},
        ],
    },
    {
        "name": "test_prompt_with_embedded_resource",
        "description": "A prompt embedding a resource",
        "arguments": [{"name": "resourceUri", "description": "URI to embed", "required": True}],
    },
    {"name": "test_prompt_with_image", "description": "A prompt with an image"},
    {"name": "test_input_required_result_prompt", "description": "A prompt that asks first"},
]


class ConformancePrompts:
    """The prompts the conformance scenarios get."""

    def list_prompts(self, ctx: RequestContext) -> Sequence[JsonObject]:
        return _PROMPTS

    async def get_prompt(
        self, name: str, arguments: dict[str, str], ctx: RequestContext
    ) -> JsonObject | InputRequired:
        if name == "test_simple_prompt":
            return {"messages": [_user(text("This is a simple prompt for testing."))]}
        if name == "test_prompt_with_arguments":
            arg1, arg2 = _required(arguments, "arg1"), _required(arguments, "arg2")
            message = f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
            return {"messages": [_user(text(message))]}
        if name == "test_prompt_with_embedded_resource":
            return _embedded(_required(arguments, "resourceUri"))
        if name == "test_prompt_with_image":
            return {"messages": [_user(image()), _user(text("Please analyze the image above."))]}
        if name == "test_input_required_result_prompt":
            return _context_prompt(ctx)
        raise ProtocolError(INVALID_PARAMS, f"Unknown prompt: {name}")


def _required(arguments: dict[str, str], key: str) -> str:
    if key not in arguments:
        raise ProtocolError(INVALID_PARAMS, f"Missing required argument: {key}")
    return arguments[key]


def _embedded(uri: str) -> JsonObject:
    resource: JsonObject = {
        "uri": uri,
        "mimeType": "text/plain",
        "text": "Embedded resource content for testing.",
    }
    return {
        "messages": [
            _user({"type": "resource", "resource": resource}),
            _user(text("Please process the embedded resource above.")),
        ]
    }


def _context_prompt(ctx: RequestContext) -> JsonObject | InputRequired:
    answer = (ctx.input_responses or {}).get("user_context")
    if answer is None or answer.action != "accept":
        question = form(
            "What context should the prompt use?", {"context": {"type": "string"}}, ["context"]
        )
        return InputRequired({"user_context": question})
    return {"messages": [_user(text(f"Context: {answer.content.get('context')}"))]}


_RESOURCES: list[JsonObject] = [
    {
        "uri": "test://static-text",
        "name": "static-text",
        "description": "A static text resource",
        "mimeType": "text/plain",
    },
    {
        "uri": "test://static-binary",
        "name": "static-binary",
        "description": "A static binary resource",
        "mimeType": "image/png",
    },
    {
        "uri": "test://watched-resource",
        "name": "watched-resource",
        "description": "A resource clients may watch",
        "mimeType": "text/plain",
    },
]
_TEMPLATE_PREFIX, _TEMPLATE_SUFFIX = "test://template/", "/data"


class ConformanceResources:
    """The resources and the template the conformance scenarios read."""

    def list_resources(self, ctx: RequestContext) -> Sequence[JsonObject]:
        return _RESOURCES

    def list_templates(self, ctx: RequestContext) -> Sequence[JsonObject]:
        return [
            {
                "uriTemplate": "test://template/{id}/data",
                "name": "template",
                "description": "Data by id",
                "mimeType": "application/json",
            }
        ]

    async def read_resource(self, uri: str, ctx: RequestContext) -> Sequence[JsonObject]:
        if uri == "test://static-text":
            content = "This is the content of the static text resource."
            return [{"uri": uri, "mimeType": "text/plain", "text": content}]
        if uri == "test://static-binary":
            return [{"uri": uri, "mimeType": "image/png", "blob": PNG_B64}]
        if uri == "test://watched-resource":
            return [{"uri": uri, "mimeType": "text/plain", "text": "watched"}]
        if uri.startswith(_TEMPLATE_PREFIX) and uri.endswith(_TEMPLATE_SUFFIX):
            item = uri[len(_TEMPLATE_PREFIX) : -len(_TEMPLATE_SUFFIX)]
            if item and "/" not in item:
                data = f'{{"id":"{item}","templateTest":true,"data":"Data for ID: {item}"}}'
                return [{"uri": uri, "mimeType": "application/json", "text": data}]
        raise ResourceNotFoundError(uri)


class ConformanceCompletions:
    """Suggestions for ``test_prompt_with_arguments``."""

    async def complete(
        self, ref: JsonObject, argument: JsonObject, ctx: RequestContext
    ) -> JsonObject:
        prefix = str(argument.get("value", ""))
        values: list[Any] = [v for v in ("paris", "park", "party") if v.startswith(prefix)]
        return {"values": values, "total": len(values), "hasMore": False}
